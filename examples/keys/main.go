package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "keys:", err)
		os.Exit(1)
	}
}

const usage = `usage: keys [-database-url URL] [-migrate] COMMAND [flags]

commands:
  create -org ORG [-name NAME] [-expires 720h|2026-12-31T00:00:00Z]
         [-scopes SCOPE,...] [-projects ID,...]
         mint a key, restricted to those scopes and projects when given;
         the key is printed once, on standard output
  list   -org ORG
         list the organization's keys (never the keys themselves)
  revoke -org ORG -id KEY_ID
         revoke a key

flags:
`

// command is one parsed subcommand, ready to run against keys.
type command func(ctx context.Context, keys *auth.Keys, stdout, stderr io.Writer) error

// run parses args, checks them all before touching the database, then runs
// the command.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("keys", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbURL := fs.String("database-url", os.Getenv("DATABASE_URL"), "PostgreSQL URL (default $DATABASE_URL)")
	migrate := fs.Bool("migrate", false, "bring the schema up to date first")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return flag.ErrHelp
	}
	cmd, err := parseCommand(fs.Arg(0), fs.Args()[1:], stderr)
	if err != nil {
		return err
	}
	if *dbURL == "" {
		return errors.New("no database: give -database-url or set DATABASE_URL")
	}

	db, err := bunstore.Open(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	if *migrate {
		if err := bunstore.Migrate(ctx, db); err != nil {
			return err
		}
	}
	keys := auth.NewKeys(bunstore.New(db))
	return cmd(ctx, keys, stdout, stderr)
}

func parseCommand(name string, args []string, stderr io.Writer) (command, error) {
	fs := flag.NewFlagSet("keys "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	org := fs.String("org", "", "organization id (required)")
	switch name {
	case "create":
		keyName := fs.String("name", "", "a name for the key, shown in lists")
		expires := fs.String("expires", "", "lifetime (720h) or expiry time (RFC 3339); none: never expires")
		scopes := fs.String("scopes", "", "comma-separated scopes the key may read ("+joinScopes(auth.AllScopes, ", ")+"); none: all")
		projects := fs.String("projects", "", "comma-separated ids of the projects the key may see; none: all")
		sandbox := fs.Bool("sandbox", false, "a sandbox key (csk_test_...): it reads the organization's sandbox, never its live data")
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		if *org == "" {
			return nil, errors.New("create: -org is required")
		}
		if *sandbox && (*scopes != "" || *projects != "") {
			return nil, errors.New("create: a -sandbox key reads all of the sandbox: leave out -scopes and -projects")
		}
		exp, err := expiry(*expires, time.Now())
		if err != nil {
			return nil, err
		}
		r, err := restriction(fs, *scopes, *projects)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, keys *auth.Keys, stdout, stderr io.Writer) error {
			return create(ctx, keys, *org, *keyName, exp, r, *sandbox, stdout, stderr)
		}, nil
	case "list":
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		if *org == "" {
			return nil, errors.New("list: -org is required")
		}
		return func(ctx context.Context, keys *auth.Keys, stdout, _ io.Writer) error {
			return list(ctx, keys, *org, stdout)
		}, nil
	case "revoke":
		id := fs.String("id", "", "key id, as list shows it (required)")
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		if *org == "" || *id == "" {
			return nil, errors.New("revoke: -org and -id are required")
		}
		return func(ctx context.Context, keys *auth.Keys, stdout, _ io.Writer) error {
			if err := keys.Revoke(ctx, *org, *id); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "revoked %s of %s\n", *id, *org)
			return nil
		}, nil
	default:
		return nil, fmt.Errorf("unknown command %q (create, list or revoke)", name)
	}
}

// parseFlags parses a subcommand's flags and refuses stray arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

// expiry reads -expires: "" (never), a duration from now, or an RFC 3339
// time.
func expiry(s string, now time.Time) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return nil, fmt.Errorf("create: -expires %s is not in the future", s)
		}
		t := now.Add(d).UTC().Truncate(time.Second)
		return &t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil, fmt.Errorf("create: -expires %q is neither a duration (720h) nor an RFC 3339 time", s)
	}
	return &t, nil
}

// restriction reads -scopes and -projects, which must not be given empty:
// an empty list would make a key that reads nothing.
func restriction(fs *flag.FlagSet, scopes, projects string) (auth.Restriction, error) {
	var r auth.Restriction
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["scopes"] {
		r.Scopes = []auth.Scope{}
		for _, s := range commaList(scopes) {
			r.Scopes = append(r.Scopes, auth.Scope(s))
		}
	}
	if given["projects"] {
		r.ProjectIDs = commaList(projects)
	}
	if err := r.Validate(); err != nil {
		return r, fmt.Errorf("create: %w", err)
	}
	return r, nil
}

// commaList splits a comma-separated flag value, trimming spaces and
// dropping empty elements; never nil.
func commaList(s string) []string {
	out := []string{}
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// joinScopes joins the names of scopes with sep.
func joinScopes(scopes []auth.Scope, sep string) string {
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	return strings.Join(names, sep)
}

// create mints a key, a sandbox key with sandbox, and prints it once.
func create(ctx context.Context, keys *auth.Keys, org, name string, exp *time.Time, r auth.Restriction, sandbox bool, stdout, stderr io.Writer) error {
	mint := func() (string, auth.Key, error) { return keys.MintRestricted(ctx, org, name, exp, r) }
	if sandbox {
		mint = func() (string, auth.Key, error) { return keys.MintSandbox(ctx, org, name, exp) }
	}
	plaintext, rec, err := mint()
	if err != nil {
		return err
	}
	until := "never expires"
	if rec.ExpiresAt != nil {
		until = "expires " + rec.ExpiresAt.Format(time.RFC3339)
	}
	what := fmt.Sprintf("%s for %s (%s, reads %s)", rec.ID, org, until, reads(rec.Restriction))
	if sandbox {
		what = fmt.Sprintf("sandbox key %s for %s (reads its sandbox, %s)", rec.ID, org, auth.SandboxOrgID(org))
	}
	fmt.Fprintf(stderr, "created %s; copy the key now, it is not stored and is shown only this once:\n", what)
	fmt.Fprintln(stdout, plaintext)
	return nil
}

func list(ctx context.Context, keys *auth.Keys, org string, stdout io.Writer) error {
	ks, err := keys.List(ctx, org)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tPREFIX\tCREATED\tEXPIRES\tLAST USED\tREVOKED\tREADS")
	for _, k := range ks {
		fmt.Fprintf(w, "%s\t%s\t%s…\t%s\t%s\t%s\t%s\t%s\n", k.ID, cmp.Or(k.Name, "-"), k.Prefix,
			k.CreatedAt.UTC().Format(time.RFC3339), when(k.ExpiresAt), when(k.LastUsedAt), when(k.RevokedAt), reads(k.Restriction))
	}
	return w.Flush()
}

// reads says what a key may read: "all", or its scopes and projects, as
// "scopes=invoices:read projects=p1,p2".
func reads(r auth.Restriction) string {
	if !r.Restricted() {
		return "all"
	}
	var parts []string
	if r.Scopes != nil {
		parts = append(parts, "scopes="+joinScopes(r.Scopes, ","))
	}
	if r.ProjectIDs != nil {
		parts = append(parts, "projects="+strings.Join(r.ProjectIDs, ","))
	}
	return strings.Join(parts, " ")
}

func when(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
