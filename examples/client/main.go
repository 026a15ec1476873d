package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"text/tabwriter"
	"time"

	"github.com/clientstatus/clientstatus/statusclient"
)

func main() {
	baseURL := flag.String("base-url", "http://localhost:8080/v1", "the API's base address, ending in /v1")
	key := flag.String("key", "", "API key (default $STATUS_API_KEY)")
	flag.Parse()
	if *key == "" {
		*key = os.Getenv("STATUS_API_KEY")
	}
	if *key == "" {
		fmt.Fprintln(os.Stderr, "client: no API key: pass -key or set STATUS_API_KEY")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, statusclient.New(*baseURL, *key), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "client:", err) // an *statusclient.Error says the code, the message and the request id
		os.Exit(1)
	}
}

func run(ctx context.Context, c *statusclient.Client, out io.Writer) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	defer w.Flush()

	// last is the Response of the latest call that returned one: its Rate
	// is the budget as the server last told it.
	var last *statusclient.Response

	fmt.Fprintln(w, "PROJECT\tSTATUS\tDUE\tNAME")
	opts := statusclient.ProjectListOptions{ListOptions: statusclient.ListOptions{Limit: statusclient.MaxLimit}}
	for {
		projects, resp, err := c.ListProjects(ctx, opts)
		if err != nil {
			return fmt.Errorf("listing projects: %w", err)
		}
		last = resp
		for _, p := range projects {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", p.ID, p.Status, date(p.DueAt), p.Name)
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}

	fmt.Fprintln(w, "\nOPEN INVOICE\tDUE\tAMOUNT DUE\tPROJECT")
	for inv, err := range c.AllInvoices(ctx, statusclient.InvoiceListOptions{Status: statusclient.InvoiceOpen}) {
		if err != nil {
			return fmt.Errorf("listing open invoices: %w", err)
		}
		project := "(retainer)"
		if inv.ProjectID != nil {
			project = *inv.ProjectID
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", inv.Number, date(&inv.DueAt), money(inv.AmountDue, inv.Currency), project)
	}

	fmt.Fprintln(w, "\nDELIVERABLE\tFILE\tLINK EXPIRES\tURL")
	for d, err := range c.AllDeliverables(ctx, statusclient.DeliverableListOptions{}) {
		if err != nil {
			return fmt.Errorf("listing deliverables: %w", err)
		}
		if d.FileName == nil {
			continue // nothing to download yet
		}
		link, resp, err := c.DownloadDeliverable(ctx, d.ID)
		if err != nil {
			return fmt.Errorf("download link of %s: %w", d.ID, err)
		}
		last = resp
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", d.ID, *d.FileName, link.ExpiresAt.Local().Format(time.TimeOnly), link.URL)
	}

	fmt.Fprintln(w, "\nRATE LIMIT\tREMAINING\tRESETS")
	if last.Rate.Limited {
		fmt.Fprintf(w, "%d\t%d\t%s\n", last.Rate.Limit, last.Rate.Remaining, last.Rate.Reset.Local().Format(time.TimeOnly))
	} else {
		fmt.Fprintln(w, "none\t-\t-")
	}
	return nil
}

func date(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.Format(time.DateOnly)
}

// money formats minor units: 123456 "EUR" is "1234.56 EUR". It assumes two
// decimals, as most currencies have.
func money(minor int64, currency string) string {
	sign := ""
	if minor < 0 {
		sign, minor = "-", -minor
	}
	return fmt.Sprintf("%s%d.%02d %s", sign, minor/100, minor%100, currency)
}
