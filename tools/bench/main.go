package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/accesslog"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// main runs the benchmark with the command line's flags: the table on
// standard output, progress on standard error.
func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// config is the command line.
type config struct {
	args          []string
	dsn           string
	dsnFromEnv    bool
	d, warmup     time.Duration
	rounds        int
	conns, thread int
	others        int
	medium, large int
	load          string
	run           *regexp.Regexp
	schema        string
	reseed        bool
	noCache       bool   // -cache=false: the library without its response cache
	cpuProfile    string // -cpuprofile: where to write a CPU profile of the runs
	log           string // -log: where the library's request log goes (logging.go)
}

// schemaName is what -schema accepts: a plain lower-case identifier.
var schemaName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,40}$`)

// parse reads the flags.
func parse(args []string, stderr io.Writer) (config, error) {
	c := config{args: args}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c.dsn, c.dsnFromEnv = os.Getenv("TEST_DATABASE_URL"), true
	fs.Func("db", "PostgreSQL URL (default $TEST_DATABASE_URL); without one, only the memory runs", func(v string) error {
		c.dsn, c.dsnFromEnv = v, false
		return nil
	})
	fs.DurationVar(&c.d, "d", 5*time.Second, "duration of each measurement (wrk rounds it up to whole seconds)")
	fs.DurationVar(&c.warmup, "warmup", time.Second, "load sent before each measurement, not counted (0: none)")
	fs.IntVar(&c.rounds, "rounds", 3, "rounds per run, each measuring both sides, in alternating order")
	fs.IntVar(&c.conns, "c", 32, "connections")
	fs.IntVar(&c.thread, "t", 2, "wrk threads (the Go generator ignores it)")
	fs.IntVar(&c.others, "others", 0, "rows of other organizations for run 6 (0: skip run 6)")
	fs.IntVar(&c.medium, "medium", 10_000, "invoices of run 3's organization")
	fs.IntVar(&c.large, "large", 100_000, "invoices of the large organization of runs 4 and 5")
	fs.StringVar(&c.load, "load", "", "load generator: wrk or go (default: wrk when it is on the PATH, else go)")
	runExpr := fs.String("run", "", "regular expression selecting runs by name (default all but `production`, which runs only when named)")
	fs.StringVar(&c.schema, "schema", "clientstatus_bench", "PostgreSQL schema; run 6 uses <schema>_others")
	fs.BoolVar(&c.reseed, "reseed", false, "drop the PostgreSQL schemas and seed them again")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole process during the runs to this `file` (go tool pprof)")
	fs.StringVar(&c.log, "log", logBuffered, "the library's request log: buffered (a file, written in blocks), file (a write per line) or discard")
	cache := fs.Bool("cache", true, "the library's response cache (-cache=false: every request queries the store and encodes)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.noCache = !*cache
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var err error
	if c.run, err = regexp.Compile(*runExpr); err != nil {
		return c, fmt.Errorf("-run: %w", err)
	}
	switch {
	case c.d <= 0 || c.warmup < 0:
		return c, errors.New("-d must be > 0 and -warmup >= 0")
	case c.rounds < 1 || c.conns < 1 || c.thread < 1 || c.conns < c.thread:
		return c, errors.New("need -rounds >= 1 and -c >= -t >= 1")
	case c.others < 0 || c.medium < 1 || c.large < 1:
		return c, errors.New("need -others >= 0, -medium >= 1 and -large >= 1")
	case c.load != "" && c.load != "wrk" && c.load != "go":
		return c, fmt.Errorf("-load %q: want wrk or go", c.load)
	case c.log != logBuffered && c.log != logFile && c.log != logDiscard:
		return c, fmt.Errorf("-log %q: want buffered, file or discard", c.log)
	case !schemaName.MatchString(c.schema):
		return c, fmt.Errorf("-schema %q: want a lower-case identifier", c.schema)
	}
	return c, nil
}

// bench is one invocation: its configuration, its load generator, and the
// stores and servers it starts as the runs need them.
type bench struct {
	cfg      config
	load     loader
	progress io.Writer
	mem      *memoryEnv
	pg       *pgEnv // the main schema
	others   *pgEnv // the schema of run 6
	prod     *pgEnv // the schema of the production-like workload
	servers  []*server
}

// run runs the selected runs and prints the report on out, progress on
// progress. It returns an error when a run failed, after the table.
func run(ctx context.Context, args []string, out, progress io.Writer) error {
	cfg, err := parse(args, progress)
	if err != nil {
		return err
	}
	// The production-like workload runs only when -run names it.
	withProd := cfg.run.String() != "" && cfg.run.MatchString(prodName)
	if cfg.cpuProfile != "" {
		f, err := os.Create(cfg.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	closeLog, err := openRequestLog(cfg.log)
	if err != nil {
		return err
	}
	defer closeLog()
	b := &bench{cfg: cfg, progress: progress}
	defer b.close()
	switch wrkPath, lookErr := exec.LookPath("wrk"); {
	case cfg.load == "go" || (cfg.load == "" && lookErr != nil):
		g := newGoLoader(cfg.conns)
		defer g.close()
		b.load = g
	case lookErr != nil:
		return fmt.Errorf("-load wrk: %w", lookErr)
	default:
		b.load = newWrkLoader(wrkPath, cfg.thread, cfg.conns)
	}

	b.header(out)
	var selected []runDef
	for _, r := range runs(cfg) {
		if cfg.run.MatchString(r.name) {
			selected = append(selected, r)
		}
	}
	if len(selected) > 0 {
		fmt.Fprintln(out, "| Run | clientstatus req/s | yardstick req/s | ratio | target | met | server CPU µs/request |")
		fmt.Fprintln(out, "|---|---|---|---|---|---|---|")
	}
	var notes []string
	failed := 0
	for _, r := range selected {
		switch {
		case r.db && cfg.dsn == "":
			notes = append(notes, fmt.Sprintf("Run %d (`%s`) skipped: it needs PostgreSQL, and neither -db nor $TEST_DATABASE_URL gives one.", r.n, r.name))
			continue
		case r.others && cfg.others == 0:
			notes = append(notes, fmt.Sprintf("Run %d (`%s`) skipped: -others is 0 (give the rows of other organizations, e.g. -others 10000000).", r.n, r.name))
			continue
		}
		res, err := b.measure(ctx, r)
		title := fmt.Sprintf("%d. `%s`: %s", r.n, r.name, r.title)
		if err != nil {
			failed++
			fmt.Fprintf(progress, "run %d (%s) FAILED: %v\n", r.n, r.name, err)
			first, _, _ := strings.Cut(err.Error(), "\n")
			notes = append(notes, fmt.Sprintf("Run %d (`%s`) FAILED: %s", r.n, r.name, first))
			fmt.Fprintf(out, "| %s | - | - | - | %s | FAILED | - |\n", title, r.goal)
			continue
		}
		met := "no"
		if r.goal.met(res.ratio) {
			met = "yes"
		}
		fmt.Fprintf(out, "| %s | %s | %s | %.2fx | %s | %s | %.1f / %.1f |\n", title,
			cell(res.subject, res.subjectLabel), cell(res.reference, res.referenceLabel), res.ratio, r.goal, met,
			res.subjectCPU, res.referenceCPU)
	}
	if len(notes) > 0 {
		fmt.Fprintln(out)
		for _, n := range notes {
			fmt.Fprintln(out, "- "+n)
		}
	}
	switch {
	case withProd && cfg.dsn == "":
		fmt.Fprintf(out, "\n- The production-like workload (`%s`) skipped: it needs PostgreSQL.\n", prodName)
	case withProd:
		if err := b.measureProduction(ctx, out); err != nil {
			failed++
			fmt.Fprintf(progress, "production FAILED: %v\n", err)
			fmt.Fprintf(out, "\n- The production-like workload FAILED: %s\n", err)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d runs failed", failed)
	}
	return nil
}

// header prints what the figures were measured on and how.
func (b *bench) header(out io.Writer) {
	cfg := b.cfg
	fmt.Fprintln(out, "### clientstatus: tools/bench")
	fmt.Fprintln(out)
	fmt.Fprintf(out, "- Command: `%s`\n", commandLine(cfg.args))
	fmt.Fprintf(out, "- %s %s/%s, GOMAXPROCS %d, %d CPUs\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.NumCPU())
	fmt.Fprintf(out, "- Load: %s\n", b.load.describe())
	fmt.Fprintf(out, "- Request: `GET %s`, enterprise key (no rate limit), loopback; every server in this process, one measured at a time\n", path)
	rounds := fmt.Sprintf("median of %d rounds", cfg.rounds)
	if cfg.rounds == 1 {
		rounds = "1 round"
	}
	fmt.Fprintf(out, "- Each figure: %s of %s after a %s warm-up; the two sides alternate, and the ratio is the median of the rounds' ratios\n", rounds, cfg.d, cfg.warmup)
	fmt.Fprintf(out, "- clientstatus side: request log on, one slog JSON line per request, %s; yardsticks: no log\n", describeLog(cfg.log))
	if cfg.noCache {
		fmt.Fprintln(out, "- clientstatus side: response cache off (-cache=false): every request queries the store and encodes")
	} else {
		fmt.Fprintln(out, "- clientstatus side: response cache on (the default; -cache=false turns it off)")
	}
	if cfg.dsn != "" {
		src := "-db"
		if cfg.dsnFromEnv {
			src = "$TEST_DATABASE_URL"
		}
		fmt.Fprintf(out, "- PostgreSQL: %s (%s), schemas %s and %s_others\n", redact(cfg.dsn), src, cfg.schema, cfg.schema)
	}
	fmt.Fprintln(out)
}

// commandLine is how the command was run, shell-quoted, with a password
// in -db hidden.
func commandLine(args []string) string {
	parts := []string{"go run ./tools/bench"}
	for i, a := range args {
		if i > 0 && (args[i-1] == "-db" || args[i-1] == "--db") {
			a = redact(a)
		} else if v, ok := strings.CutPrefix(a, "-db="); ok {
			a = "-db=" + redact(v)
		}
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

// plainArg is an argument the shell takes as it is.
var plainArg = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

// shellQuote quotes a for a POSIX shell when it needs it.
func shellQuote(a string) string {
	if plainArg.MatchString(a) {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

// redact hides the password of a database URL.
func redact(dsn string) string {
	if dsn == "" {
		return ""
	}
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		return "(a database URL)"
	}
	return u.Redacted()
}

// result is a run's figures.
type result struct {
	subject, reference           float64
	subjectLabel, referenceLabel string
	ratio                        float64
	// The process's CPU time per request served while a side was
	// measured, in µs (median of the rounds): the servers' own cost,
	// whatever share of the cores the load generator took.
	subjectCPU, referenceCPU float64
}

// measure prepares a run and measures its two sides -rounds times, the
// subject first in odd rounds and second in even ones, each after a
// warm-up.
func (b *bench) measure(ctx context.Context, r runDef) (result, error) {
	fmt.Fprintf(b.progress, "run %d (%s): preparing\n", r.n, r.name)
	subject, reference, err := r.prepare(ctx, b)
	if err != nil {
		return result{}, err
	}
	var subj, ref, ratios, subjCPU, refCPU []float64
	for round := range b.cfg.rounds {
		order := []*side{&subject, &reference}
		if round%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		got, cpu := map[*side]float64{}, map[*side]float64{}
		for _, s := range order {
			if b.cfg.warmup > 0 {
				if _, err := b.load.measure(ctx, s.url, s.key, b.cfg.warmup); err != nil && !errors.Is(err, errNoneCompleted) {
					return result{}, fmt.Errorf("warm-up of %s: %w", s.url, err)
				}
			}
			before := usage()
			rps, err := b.load.measure(ctx, s.url, s.key, b.cfg.d)
			if err != nil {
				return result{}, fmt.Errorf("%s: %w", s.url, err)
			}
			got[s], cpu[s] = rps, usage().perRequest(before)
		}
		subj, ref = append(subj, got[&subject]), append(ref, got[&reference])
		subjCPU, refCPU = append(subjCPU, cpu[&subject]), append(refCPU, cpu[&reference])
		ratios = append(ratios, r.goal.ratio(got[&subject], got[&reference]))
		fmt.Fprintf(b.progress, "run %d (%s) round %d: clientstatus %s req/s (%.1f µs CPU each), yardstick %s req/s (%.1f µs), ratio %.2fx\n",
			r.n, r.name, round+1, thousands(got[&subject]), cpu[&subject], thousands(got[&reference]), cpu[&reference], ratios[len(ratios)-1])
	}
	return result{
		subject: median(subj), reference: median(ref), ratio: median(ratios),
		subjectLabel: subject.label, referenceLabel: reference.label,
		subjectCPU: median(subjCPU), referenceCPU: median(refCPU),
	}, nil
}

// cell is a figure of the table, with its label when it has one.
func cell(rps float64, label string) string {
	if label == "" {
		return thousands(rps)
	}
	return thousands(rps) + " (" + label + ")"
}

// thousands formats x rounded to a whole number, with commas between
// thousands.
func thousands(x float64) string {
	s := strconv.FormatInt(int64(x+0.5), 10)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// libraryHandler is the library's side: statusapi.New on st and keys, an
// in-memory limiter (the enterprise plan is unlimited anyway), a public
// URL and a signing key as a server sets them, and the response cache
// unless noCache, behind the request log.
func libraryHandler(st store.Store, keys auth.KeyResolver, noCache bool) http.Handler {
	opts := []statusapi.Option{
		statusapi.WithPublicURL("https://bench.example"),
		statusapi.WithSigningKey([]byte(rand.Text() + rand.Text())),
	}
	if noCache {
		opts = append(opts, statusapi.WithoutResponseCache())
	}
	return accesslog.JSONHandler(requestLog, statusapi.New(st, keys, ratelimit.NewMemory(), opts...))
}

// memory returns the in-memory environment, made the first time.
func (b *bench) memory() (*memoryEnv, error) {
	if b.mem == nil {
		mem, err := newMemoryEnv(b.cfg.noCache)
		if err != nil {
			return nil, err
		}
		b.mem = mem
	}
	return b.mem, nil
}

// postgres returns the environment of the schema -schema+suffix, kept in
// *env: opened the first time.
func (b *bench) postgres(ctx context.Context, env **pgEnv, suffix string) (*pgEnv, error) {
	if *env == nil {
		pg, err := openPostgres(ctx, b.cfg.dsn, b.cfg.schema+suffix, b.cfg.reseed, b.cfg.noCache, b.progress)
		if err != nil {
			return nil, err
		}
		*env = pg
	}
	return *env, nil
}

// serve starts a yardstick's server, stopped when the bench closes.
func (b *bench) serve(h http.Handler) (*server, error) {
	s, err := startServer(h)
	if err == nil {
		b.servers = append(b.servers, s)
	}
	return s, err
}

// close stops every server and environment.
func (b *bench) close() {
	for _, s := range b.servers {
		s.close()
	}
	if b.mem != nil {
		b.mem.close()
	}
	for _, pg := range []*pgEnv{b.pg, b.others, b.prod} {
		if pg != nil {
			pg.close()
		}
	}
}

// server is an http.Server on a loopback port of its own.
type server struct {
	srv *http.Server
	url string // http://127.0.0.1:port
}

// served counts the requests every server of the process has answered:
// one server is loaded at a time, so its growth during a measurement is
// that server's.
var served atomic.Int64

// cpuSample is the process's CPU time (user and system) and the requests
// served, at one moment.
type cpuSample struct {
	cpu      time.Duration
	requests int64
}

// usage samples the process's CPU time and requests served.
func usage() cpuSample {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return cpuSample{cpu: cpu, requests: served.Load()}
}

// perRequest is the CPU time per request served since before, in µs; 0
// when none was.
func (s cpuSample) perRequest(before cpuSample) float64 {
	n := s.requests - before.requests
	if n <= 0 {
		return 0
	}
	return float64(s.cpu-before.cpu) / float64(time.Microsecond) / float64(n)
}

// startServer serves h on 127.0.0.1:0, counting its requests in served.
func startServer(h http.Handler) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		served.Add(1)
	})
	srv := &http.Server{Handler: counted, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return &server{srv: srv, url: "http://" + ln.Addr().String()}, nil
}

// close stops the server, waiting a little for requests in flight.
func (s *server) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = s.srv.Shutdown(ctx)
}
