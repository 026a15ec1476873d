package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/clientstatus/clientstatus/auth"
)

// printWelcome tells the person who started the server how to call it.
// Keys are printed for the built-in demo data only: they are public demo
// keys. A data file's keys are the operator's own and are never printed.
func printWelcome(w io.Writer, cfg config, ds *dataset, settings bool) {
	baseURL := cfg.publicURL
	fmt.Fprintf(w, "\nClient status API on %s/v1\n", baseURL)
	if settings {
		fmt.Fprintf(w, "Developer settings (keys, webhooks, requests, usage) on %s%s/, behind a demo sign-in\n", baseURL, settingsPath)
	}
	if cfg.dataFile != "" {
		fmt.Fprintf(w, "Serving %s: %d organizations, %d projects, %d invoices; use its API keys.\n",
			cfg.dataFile, len(ds.orgs), len(ds.projects), len(ds.invoices))
		fmt.Fprintf(w, "\nTry:\n  curl -H \"Authorization: Bearer <key from %s>\" %s/v1/projects\n\n", cfg.dataFile, baseURL)
		return
	}
	fmt.Fprintln(w, "Serving the built-in demo data. Demo API keys (public, for trying it out):")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  ORGANIZATION\tPLAN\tACCESS\tAPI KEY")
	for _, o := range demoOrgs {
		access := "ok"
		switch {
		case !o.RetainerActive:
			access = "403: retainer ended"
		case !o.APIEnabled:
			access = "403: API access off"
		}
		fmt.Fprintf(tw, "  %s (%s)\t%s\t%s\t%s\n", o.Name, o.ID, o.Plan, access, o.key)
	}
	fmt.Fprintf(tw, "  %s's sandbox (%s)\t%s\t%s\t%s\n", demoOrgs[0].Name, auth.SandboxOrgID(demoOrgs[0].ID), demoOrgs[0].Plan, "ok: demo data that moves", demoSandboxKey)
	tw.Flush()
	fmt.Fprintf(w, "\nTry:\n  curl -H \"Authorization: Bearer %s\" %s/v1/projects\n\n", demoOrgs[0].key, baseURL)
}
