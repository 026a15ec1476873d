package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/tools/internal/pgtemp"
	"github.com/clientstatus/clientstatus/webhook"
)

// key seals the endpoints' secrets, in the parent and in the replicas.
var key, _ = webhook.DeriveKey([]byte("webhookload: a measuring key, not a secret"))

// org is the organization whose events are delivered.
const org = "org_load"

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "webhookload:", err)
		os.Exit(1)
	}
}

// options are the parent's flags.
type options struct {
	dsn       string
	events    int
	endpoints int
	claim     time.Duration
	delay     time.Duration
	down      time.Duration
	retries   []time.Duration
	verbose   bool
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("webhookload", flag.ContinueOnError)
	o := options{retries: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}}
	fs.StringVar(&o.dsn, "database-url", cmp.Or(os.Getenv("TEST_DATABASE_URL"), os.Getenv("DATABASE_URL")), "PostgreSQL URL (or $TEST_DATABASE_URL, $DATABASE_URL); a schema of its own is made in it, and dropped")
	scenarios := fs.String("scenario", "throughput,replicas,kill,down", "comma-separated scenarios to run")
	fs.IntVar(&o.events, "events", 1000, "events per scenario (throughput, replicas, kill)")
	fs.IntVar(&o.endpoints, "endpoints", 3, "endpoints (replicas, kill)")
	fs.DurationVar(&o.claim, "claim", 5*time.Second, "claim expiry of the replicas (kill: how long the dead replica's claims last)")
	fs.DurationVar(&o.delay, "delay", 100*time.Millisecond, "the receiver's answer time in the kill scenario, so that attempts are in flight")
	fs.DurationVar(&o.down, "down", 4*time.Second, "how long the receiver is down (down)")
	fs.Func("retries", "the replicas' retry schedule (default 1s,2s,4s)", func(v string) error {
		o.retries = nil
		for _, s := range strings.Split(v, ",") {
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				return fmt.Errorf("%q is not a positive duration", s)
			}
			o.retries = append(o.retries, d)
		}
		return nil
	})
	fs.BoolVar(&o.verbose, "v", false, "show the replicas' logs")
	replica := fs.Bool("replica", false, "run as a replica (the parent starts them)")
	timeout := fs.Duration("timeout", 2*time.Second, "a replica's attempt timeout")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *replica {
		return runReplica(replicaConfig{dsn: o.dsn, claim: o.claim, timeout: *timeout, retries: o.retries}, out)
	}
	if o.dsn == "" {
		return errors.New("need -database-url (or $TEST_DATABASE_URL)")
	}
	if o.events < 1 || o.endpoints < 1 {
		return errors.New("-events and -endpoints must be at least 1")
	}
	fmt.Fprintf(out, "webhookload: %d events, %d endpoints, claim %v, retries %v\n", o.events, o.endpoints, o.claim, o.retries)
	var lost bool
	for _, s := range strings.Split(*scenarios, ",") {
		var err error
		switch strings.TrimSpace(s) {
		case "throughput":
			err = throughput(ctx, o, out)
		case "replicas":
			err = replicas(ctx, o, out, false)
		case "kill":
			err = replicas(ctx, o, out, true)
		case "down":
			err = down(ctx, o, out)
		default:
			return fmt.Errorf("-scenario: no scenario %q", s)
		}
		if errors.Is(err, errLost) {
			lost = true
			fmt.Fprintln(out, "  LOST:", err)
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	if lost {
		return errLost
	}
	return nil
}

// errLost is a scenario whose deliveries did not all arrive.
var errLost = errors.New("deliveries lost")

// env is one scenario's database: a schema of its own, migrated, with the
// organization, and the receiver its endpoints point at.
type env struct {
	o      options
	schema string
	dsn    string // with the schema as search_path
	drop   func() error
	db     *bun.DB
	st     *bunstore.Store
	rcv    *receiver
	reps   []*replica
}

func newEnv(ctx context.Context, o options, endpoints int) (*env, error) {
	schema, dsn, drop, err := pgtemp.Schema(ctx, o.dsn, "webhookload_")
	if err != nil {
		return nil, fmt.Errorf("-database-url: %w", err)
	}
	e := &env{o: o, schema: schema, dsn: dsn, drop: drop}
	if e.db, err = bunstore.Open(ctx, e.dsn); err != nil {
		e.close()
		return nil, err
	}
	e.st = bunstore.New(e.db)
	if err := e.st.PutOrganization(ctx, store.Organization{ID: org, Name: "Load", Plan: store.PlanEnterprise}); err != nil {
		e.close()
		return nil, err
	}
	if e.rcv, err = newReceiver(); err != nil {
		e.close()
		return nil, err
	}
	eps := webhook.NewEndpoints(e.st, e.st, key, webhook.WithAllowLocal(true))
	for i := range endpoints {
		path := fmt.Sprintf("/e%d", i)
		_, secret, err := eps.Create(ctx, org, webhook.Settings{ID: fmt.Sprintf("we_%d", i), URL: "http://" + e.rcv.addr + path})
		if err != nil {
			e.close()
			return nil, err
		}
		e.rcv.secrets[path] = secret
	}
	return e, nil
}

// close stops the replicas still running, and drops the schema.
func (e *env) close() {
	for _, r := range e.reps {
		r.terminate()
	}
	if e.rcv != nil {
		e.rcv.close()
	}
	if e.db != nil {
		e.db.Close()
	}
	if err := e.drop(); err != nil {
		fmt.Fprintln(os.Stderr, "webhookload: dropping schema", e.schema+":", err)
	}
}

func (e *env) replica(ctx context.Context, c replicaConfig) (*replica, error) {
	c.dsn = e.dsn
	var logs io.Writer = io.Discard
	if e.o.verbose {
		logs = os.Stderr
	}
	r, err := startReplica(ctx, c, logs)
	if err == nil {
		e.reps = append(e.reps, r)
	}
	return r, err
}

// commit writes invoice inv_{i}, a new one: one event, invoice.created,
// committed when it returns.
func (e *env) commit(ctx context.Context, i int) (string, time.Time, error) {
	now := time.Now()
	id := fmt.Sprintf("inv_%06d", i)
	err := e.st.PutInvoice(ctx, store.Invoice{ID: id, OrgID: org, Number: fmt.Sprintf("L-%06d", i), Status: store.InvoiceOpen,
		Currency: "EUR", Total: 1000, AmountDue: 1000, IssuedAt: now, DueAt: now.Add(30 * 24 * time.Hour)})
	return id, time.Now(), err
}

// commitMany commits invoices from..to-1 with four writers at once; a
// writer stops committing at its first error, which is returned.
func (e *env) commitMany(ctx context.Context, from, to int) error {
	next := make(chan int)
	errs := make([]error, 4)
	var wg sync.WaitGroup
	for w := range errs {
		wg.Go(func() {
			for i := range next {
				if errs[w] == nil {
					_, _, errs[w] = e.commit(ctx, i)
				}
			}
		})
	}
	for i := from; i < to; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

// outcomes summarizes the attempts logged, by status and error.
func (e *env) outcomes(ctx context.Context) string {
	var rows []struct {
		Status *int    `bun:"status_code"`
		Error  *string `bun:"error"`
		N      int     `bun:"n"`
	}
	if err := e.db.NewRaw("SELECT status_code, error, count(*) AS n FROM webhook_deliveries GROUP BY 1, 2 ORDER BY 3 DESC").Scan(ctx, &rows); err != nil {
		return err.Error()
	}
	var parts []string
	for _, r := range rows {
		k := "no answer"
		if r.Status != nil {
			k = fmt.Sprint(*r.Status)
		}
		if r.Error != nil {
			k += " " + *r.Error
		}
		parts = append(parts, fmt.Sprintf("%s: %d", k, r.N))
	}
	return strings.Join(parts, ", ")
}

// pending counts the jobs not finished: due, or claimed.
func (e *env) pending(ctx context.Context) (int, error) {
	var n int
	err := e.db.NewRaw("SELECT count(*) FROM webhook_jobs WHERE due IS NOT NULL").Scan(ctx, &n)
	return n, err
}

func throughput(ctx context.Context, o options, out io.Writer) error {
	fmt.Fprintf(out, "\nthroughput: one replica, %d events queued before it starts, 1 endpoint\n", o.events)
	e, err := newEnv(ctx, o, 1)
	if err != nil {
		return err
	}
	defer e.close()
	if err := e.commitMany(ctx, 0, o.events); err != nil {
		return err
	}
	r, err := e.replica(ctx, replicaConfig{claim: o.claim, timeout: 2 * time.Second, retries: o.retries})
	if err != nil {
		return err
	}
	start := time.Now()
	if !testenv.Until(2*time.Minute, func() bool { n, _, _ := e.rcv.counts(); return n == o.events }) {
		n, _, _ := e.rcv.counts()
		return fmt.Errorf("%w: %d of %d delivered", errLost, n, o.events)
	}
	e.rcv.mu.Lock()
	took := e.rcv.last.Sub(start)
	e.rcv.mu.Unlock()
	fmt.Fprintf(out, "  %d deliveries in %v: %.0f deliveries/s (from the replica's start: queueing included)\n",
		o.events, took.Round(time.Millisecond), float64(o.events)/took.Seconds())

	const n = 100
	fmt.Fprintf(out, "latency: %d events written one at a time, 20 ms apart, the replica idle\n", n)
	committed := map[string]time.Time{}
	for i := range n {
		id, at, err := e.commit(ctx, o.events+i)
		if err != nil {
			return err
		}
		committed[id] = at
		time.Sleep(20 * time.Millisecond)
	}
	if !testenv.Until(time.Minute, func() bool { got, _, _ := e.rcv.counts(); return got == o.events+n }) {
		return fmt.Errorf("%w: latency events not all delivered", errLost)
	}
	var lat []time.Duration
	e.rcv.mu.Lock()
	for id, at := range committed {
		lat = append(lat, e.rcv.arrived[id].Sub(at))
	}
	e.rcv.mu.Unlock()
	slices.Sort(lat)
	fmt.Fprintf(out, "  commit-to-delivery p50 %v, p90 %v, max %v\n", pct(lat, 50), pct(lat, 90), lat[len(lat)-1].Round(time.Microsecond*100))
	_, dups, bad := e.rcv.counts()
	fmt.Fprintf(out, "  duplicates %d, unverified %d\n", dups, bad)
	return r.terminate()
}

func pct(sorted []time.Duration, p int) time.Duration {
	return sorted[(len(sorted)-1)*p/100].Round(100 * time.Microsecond)
}

// replicas runs two replica processes on one database; with kill, it
// SIGKILLs the first half-way through the writes, while it holds claims.
func replicas(ctx context.Context, o options, out io.Writer, kill bool) error {
	name := "replicas: two replica processes"
	if kill {
		name = fmt.Sprintf("kill: two replica processes, one SIGKILLed half-way (receiver answering in %v, claims of %v)", o.delay, o.claim)
	}
	want := o.events * o.endpoints
	fmt.Fprintf(out, "\n%s, %d events x %d endpoints = %d deliveries\n", name, o.events, o.endpoints, want)
	e, err := newEnv(ctx, o, o.endpoints)
	if err != nil {
		return err
	}
	defer e.close()
	if kill {
		e.rcv.delay = o.delay
	}
	c := replicaConfig{claim: o.claim, timeout: 2 * time.Second, retries: o.retries}
	a, err := e.replica(ctx, c)
	if err != nil {
		return err
	}
	b, err := e.replica(ctx, c)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := e.commitMany(ctx, 0, o.events/2); err != nil {
		return err
	}
	var killedAt time.Time
	var tokens []string
	if kill {
		// Kill a when it holds claims: attempts it has not finished.
		if !testenv.Until(30*time.Second, func() bool { return a.holding() > 0 }) {
			return errors.New("the first replica never held a claim to kill it with")
		}
		if err := a.kill(); err != nil {
			return err
		}
		killedAt = time.Now()
		tokens = a.held()
		if len(tokens) == 0 {
			return errors.New("the first replica finished its claims as it was killed: run again")
		}
		var inDB int
		if err := e.db.NewRaw("SELECT count(*) FROM webhook_jobs WHERE claim IN (?)", bun.List(tokens)).Scan(ctx, &inDB); err != nil {
			return err
		}
		fmt.Fprintf(out, "  killed replica 1 after %v holding %d claims it had not finished (its own count); the database shows %d jobs under its %d claim tokens\n",
			killedAt.Sub(start).Round(time.Millisecond), a.holding(), inDB, len(tokens))
	}
	if err := e.commitMany(ctx, o.events/2, o.events); err != nil {
		return err
	}
	committed := time.Now()
	wait := time.Minute + 2*o.claim
	if !testenv.Until(wait, func() bool { n, _, _ := e.rcv.counts(); return n == want }) {
		n, dups, _ := e.rcv.counts()
		return fmt.Errorf("%w: %d of %d delivered after %v (%d duplicates)", errLost, n, want, wait, dups)
	}
	delivered := time.Now()
	// Every job finished: no attempt is left to come as a duplicate.
	if !testenv.Until(wait, func() bool { n, err := e.pending(ctx); return err == nil && n == 0 }) {
		return errors.New("jobs still pending after every delivery arrived")
	}
	finished := time.Now()
	var stillHeld int
	if kill {
		if err := e.db.NewRaw("SELECT count(*) FROM webhook_jobs WHERE claim IN (?)", bun.List(tokens)).Scan(ctx, &stillHeld); err != nil {
			return err
		}
	}
	if err := b.terminate(); err != nil {
		return err
	}
	if err := a.terminate(); err != nil { // nothing to do for a killed replica
		return err
	}
	n, dups, bad := e.rcv.counts()
	fmt.Fprintf(out, "  %d of %d delivered (%d lost), %d duplicates, %d unverified; %v after the last commit, %v in all\n",
		n, want, want-n, dups, bad, delivered.Sub(committed).Round(time.Millisecond), delivered.Sub(start).Round(time.Millisecond))
	fmt.Fprintf(out, "  attempts finished: replica 1 %d, replica 2 %d\n", a.finished(), b.finished())
	if kill {
		e.rcv.mu.Lock()
		aborted := e.rcv.aborted
		e.rcv.mu.Unlock()
		fmt.Fprintf(out, "  %d requests of the dead replica were cut off before their answer (not counted as delivered); every job finished %v after the kill\n",
			aborted, finished.Sub(killedAt).Round(time.Millisecond))
		fmt.Fprintf(out, "  the dead replica's claims: %d jobs still under them at the end (the survivor took them over after they expired)\n", stillHeld)
	}
	if n != want {
		return errLost
	}
	return nil
}

// down has the receiver answer 503, then refuse connections, for -down
// while events are written; every event must arrive once it is back.
func down(ctx context.Context, o options, out io.Writer) error {
	const n = 100
	for _, mode := range []string{"503", "refuse"} {
		fmt.Fprintf(out, "\ndown (%s): the receiver down for %v from the first of %d events, retries %v\n", mode, o.down, n, o.retries)
		err := func() error {
			e, err := newEnv(ctx, o, 1)
			if err != nil {
				return err
			}
			defer e.close()
			r, err := e.replica(ctx, replicaConfig{claim: o.claim, timeout: 2 * time.Second, retries: o.retries})
			if err != nil {
				return err
			}
			if mode == "503" {
				e.rcv.setAnswer(503)
			} else if err := e.rcv.refuse(); err != nil {
				return err
			}
			start := time.Now()
			if err := e.commitMany(ctx, 0, n); err != nil {
				return err
			}
			time.Sleep(time.Until(start.Add(o.down)))
			if mode == "503" {
				e.rcv.setAnswer(0)
			} else if err := e.rcv.listen(); err != nil {
				return err
			}
			back := time.Now()
			var total time.Duration
			for _, d := range o.retries {
				total += d
			}
			wait := total*12/10 + 10*time.Second
			if !testenv.Until(wait, func() bool { got, _, _ := e.rcv.counts(); return got == n }) {
				got, _, _ := e.rcv.counts()
				return fmt.Errorf("%w: %d of %d arrived within %v of the receiver's return; attempts: %s", errLost, got, n, wait, e.outcomes(ctx))
			}
			e.rcv.mu.Lock()
			last, refusedBy503 := e.rcv.last, e.rcv.down
			e.rcv.mu.Unlock()
			var attempts, failed, most int
			if err := e.db.NewRaw("SELECT count(*), count(*) FILTER (WHERE status_code IS DISTINCT FROM 204), coalesce(max(attempt), 0) FROM webhook_deliveries").
				Scan(ctx, &attempts, &failed, &most); err != nil {
				return err
			}
			_, dups, bad := e.rcv.counts()
			fmt.Fprintf(out, "  %d of %d arrived, the last %v after the receiver was back (%v after the first event); %d duplicates, %d unverified\n",
				n, n, last.Sub(back).Round(time.Millisecond), last.Sub(start).Round(time.Millisecond), dups, bad)
			fmt.Fprintf(out, "  %d attempts, %d failed (%d answered 503), at most %d for one event\n", attempts, failed, refusedBy503, most)
			return r.terminate()
		}()
		if err != nil {
			return err
		}
	}
	return nil
}
