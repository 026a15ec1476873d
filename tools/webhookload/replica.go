package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/webhook"
)

// replicaConfig is what a replica process is started with.
type replicaConfig struct {
	dsn     string // with the schema in its search_path
	claim   time.Duration
	timeout time.Duration
	retries []time.Duration
}

// args are the command-line arguments that start a replica of c.
func (c replicaConfig) args() []string {
	a := []string{"-replica", "-database-url", c.dsn, "-claim", c.claim.String(), "-timeout", c.timeout.String()}
	if c.retries != nil {
		s := make([]string, len(c.retries))
		for i, d := range c.retries {
			s[i] = d.String()
		}
		a = append(a, "-retries", strings.Join(s, ","))
	}
	return a
}

// reporting is a replica's store: bunstore's, telling the parent on out of
// every claim ("claim TOKEN N") and every finished attempt ("finish TOKEN
// EVENT STATUS"), so that the parent knows which claims a replica holds
// when it kills it.
type reporting struct {
	*bunstore.Store
	mu  sync.Mutex
	out io.Writer
}

func (r *reporting) line(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.out, format+"\n", args...)
}

// ClaimWebhookJobs claims as bunstore does, and reports the claim.
func (r *reporting) ClaimWebhookJobs(ctx context.Context, now time.Time, limit int, claim time.Duration) ([]store.WebhookJob, error) {
	jobs, err := r.Store.ClaimWebhookJobs(ctx, now, limit, claim)
	if len(jobs) > 0 {
		r.line("claim %s %d", jobs[0].Claim, len(jobs))
	}
	return jobs, err
}

// FinishWebhookAttempt finishes as bunstore does, and reports it.
func (r *reporting) FinishWebhookAttempt(ctx context.Context, job store.WebhookJob, d store.WebhookDelivery, o store.WebhookOutcome) error {
	err := r.Store.FinishWebhookAttempt(ctx, job, d, o)
	r.line("finish %s %s %d", job.Claim, job.EventID, d.StatusCode)
	return err
}

// runReplica is a replica: a dispatcher on the database of c, delivering
// until SIGTERM or SIGINT (then it stops gracefully) or SIGKILL. It prints
// "ready" once started, then its claims and attempts (see reporting).
func runReplica(c replicaConfig, out io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	db, err := bunstore.Open(ctx, c.dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	st := &reporting{Store: bunstore.New(db), out: out}
	d := webhook.NewDispatcher(st, st.Store, key, webhook.WithAllowLocal(true), webhook.WithClaimExpiry(c.claim),
		webhook.WithTimeout(c.timeout), webhook.WithSchedule(c.retries))
	d.Start(ctx)
	st.line("ready")
	<-ctx.Done()
	stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return d.Stop(stopCtx)
}

// replica is a replica process the parent started, and what it reported.
type replica struct {
	cmd    *exec.Cmd
	ready  chan struct{}
	exited chan error

	mu   sync.Mutex
	open map[string]int // claim token: jobs claimed, not finished
	done int            // attempts finished
	dead bool
}

// startReplica starts this binary as a replica of c and waits until it is
// delivering; its logs go to logs.
func startReplica(ctx context.Context, c replicaConfig, logs io.Writer) (*replica, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, c.args()...)
	cmd.Stderr = logs
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := &replica{cmd: cmd, ready: make(chan struct{}), exited: make(chan error, 1), open: map[string]int{}}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			r.report(strings.Fields(sc.Text()))
		}
		r.exited <- cmd.Wait()
	}()
	select {
	case <-r.ready:
		return r, nil
	case err := <-r.exited:
		return nil, fmt.Errorf("replica exited before it was ready: %v", err)
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		return nil, errors.New("replica not ready after 30 s")
	case <-ctx.Done():
		cmd.Process.Kill()
		return nil, ctx.Err()
	}
}

func (r *replica) report(f []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case len(f) == 1 && f[0] == "ready":
		close(r.ready)
	case len(f) == 3 && f[0] == "claim":
		n, _ := strconv.Atoi(f[2])
		r.open[f[1]] += n
	case len(f) == 4 && f[0] == "finish":
		r.done++
		if r.open[f[1]]--; r.open[f[1]] <= 0 {
			delete(r.open, f[1])
		}
	}
}

// holding is how many jobs the replica holds claimed and unfinished, as
// far as it reported.
func (r *replica) holding() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, k := range r.open {
		n += k
	}
	return n
}

// held returns the claim tokens under which the replica holds jobs.
func (r *replica) held() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Collect(maps.Keys(r.open))
}

func (r *replica) finished() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.done
}

// kill kills the replica with SIGKILL, at once: nothing of it finishes.
func (r *replica) kill() error {
	r.mu.Lock()
	r.dead = true
	r.mu.Unlock()
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		return err
	}
	<-r.exited
	return nil
}

// terminate stops the replica gracefully (SIGTERM), once.
func (r *replica) terminate() error {
	r.mu.Lock()
	dead := r.dead
	r.dead = true
	r.mu.Unlock()
	if dead {
		return nil
	}
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case err := <-r.exited:
		return err
	case <-time.After(20 * time.Second):
		r.cmd.Process.Kill()
		return errors.New("replica did not stop within 20 s of SIGTERM")
	}
}
