package webhooktest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/webhook"
)

// Subject is a store with endpoints, their queue, events, and
// organizations that a test puts and deletes.
type Subject interface {
	webhook.Store
	store.Events
	PutOrganization(ctx context.Context, o store.Organization) error
	DeleteOrganization(ctx context.Context, orgID string) error
}

// Counting wraps a Subject and counts the dispatcher's calls (each one
// or a few statements on a database), by pass: a pass starts with
// EnabledWebhookEndpoints and its queueing ends with its first
// ClaimWebhookJobs.
type Counting struct {
	Subject

	mu       sync.Mutex
	calls    int           // since the current pass began
	passes   []Pass        // finished passes
	started  time.Time     // of the current pass; zero between passes
	finished chan struct{} // closed and replaced on each finished pass
}

// Pass is what one pass cost.
type Pass struct {
	Calls int           // store calls, the listing and the claim included
	Took  time.Duration // from the listing to the claim
}

// NewCounting returns s, counted.
func NewCounting(s Subject) *Counting { return &Counting{Subject: s, finished: make(chan struct{})} }

func (c *Counting) count() {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
}

// EnabledWebhookEndpoints starts a pass.
func (c *Counting) EnabledWebhookEndpoints(ctx context.Context) ([]store.WebhookEndpoint, error) {
	c.mu.Lock()
	c.calls, c.started = 1, time.Now()
	c.mu.Unlock()
	return c.Subject.EnabledWebhookEndpoints(ctx)
}

// ClaimWebhookJobs ends a pass's queueing.
func (c *Counting) ClaimWebhookJobs(ctx context.Context, now time.Time, limit int, claim time.Duration) ([]store.WebhookJob, error) {
	c.mu.Lock()
	c.calls++
	if !c.started.IsZero() {
		c.passes = append(c.passes, Pass{Calls: c.calls, Took: time.Since(c.started)})
		c.started = time.Time{}
		close(c.finished)
		c.finished = make(chan struct{})
	}
	c.mu.Unlock()
	return c.Subject.ClaimWebhookJobs(ctx, now, limit, claim)
}

// ListEvents is counted.
func (c *Counting) ListEvents(ctx context.Context, orgID string, q store.EventQuery) (store.EventPage, error) {
	c.count()
	return c.Subject.ListEvents(ctx, orgID, q)
}

// LatestEvent is counted.
func (c *Counting) LatestEvent(ctx context.Context, orgID string) (string, error) {
	c.count()
	return c.Subject.LatestEvent(ctx, orgID)
}

// EnqueueWebhookJobs is counted.
func (c *Counting) EnqueueWebhookJobs(ctx context.Context, orgID, endpointID, from, to string, jobs []store.WebhookJob) error {
	c.count()
	return c.Subject.EnqueueWebhookJobs(ctx, orgID, endpointID, from, to, jobs)
}

// GetWebhookEndpoint is counted.
func (c *Counting) GetWebhookEndpoint(ctx context.Context, orgID, id string) (store.WebhookEndpoint, error) {
	c.count()
	return c.Subject.GetWebhookEndpoint(ctx, orgID, id)
}

// nextPass waits for a pass that starts after the call and returns it.
func (c *Counting) nextPass(t testing.TB) Pass {
	t.Helper()
	c.mu.Lock()
	n := len(c.passes)
	if !c.started.IsZero() {
		n++ // the pass under way started before the call
	}
	for len(c.passes) <= n {
		ch := c.finished
		c.mu.Unlock()
		select {
		case <-ch:
		case <-time.After(time.Minute):
			t.Fatal("no pass of the dispatcher within a minute")
		}
		c.mu.Lock()
	}
	defer c.mu.Unlock()
	return c.passes[n]
}

// Figures are what Measure found.
type Figures struct {
	Orgs                  int
	GoroutinesBefore      int // before the organizations were put
	GoroutinesWithOrgs    int // once every organization is watched
	GoroutinesAfterDelete int // once they are deleted
	Pass                  Pass
}

func (f Figures) String() string {
	return fmt.Sprintf("%d organizations with an endpoint: goroutines %d before, %d with them, %d after deleting them; a quiet pass: %d store calls, %s",
		f.Orgs, f.GoroutinesBefore, f.GoroutinesWithOrgs, f.GoroutinesAfterDelete, f.Pass.Calls, f.Pass.Took.Round(time.Microsecond))
}

// Size is how many organizations Measure is run with: 1,000, or the
// value of CLIENTSTATUS_MEASURE_ORGS (docs/performance.md uses 10,000).
func Size(t testing.TB) int {
	if v := os.Getenv("CLIENTSTATUS_MEASURE_ORGS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("CLIENTSTATUS_MEASURE_ORGS=%q: want a positive number", v)
		}
		return n
	}
	return 1_000
}

// Measure puts n organizations, each with an enabled endpoint, runs a
// dispatcher on s, and measures: the store calls and time of one pass
// once the dispatcher has caught up (nothing new to queue), and the
// goroutines before, with the organizations, and after they are
// deleted. It fails t when the goroutines do not come back to within
// slack of where they started within a minute.
func Measure(t testing.TB, s Subject, n, slack int) Figures {
	t.Helper()
	c := NewCounting(s)
	key := signingKey(t)
	eps := webhook.NewEndpoints(c, c, key, webhook.WithAllowLocal(true))
	f := Figures{Orgs: n}
	runtime.GC()
	f.GoroutinesBefore = runtime.NumGoroutine()
	for i := range n {
		org := fmt.Sprintf("org_%05d", i)
		if err := s.PutOrganization(ctx, store.Organization{ID: org, Name: org, Plan: store.PlanStarter}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := eps.Create(ctx, org, webhook.Settings{ID: "we_1", URL: "http://127.0.0.1:9/hook"}); err != nil {
			t.Fatal(err)
		}
	}
	d := webhook.NewDispatcher(c, c, key, webhook.WithAllowLocal(true), webhook.WithPollInterval(10*time.Millisecond))
	d.Start(ctx)
	defer d.Stop(ctx)
	c.nextPass(t) // the first: it looks at every organization
	// Then the quietest of ten: a store whose listening starts with the
	// dispatcher wakes every organization once (news may have been
	// missed), and the writes above may still be notified.
	f.Pass = c.nextPass(t)
	for range 9 {
		if p := c.nextPass(t); p.Calls < f.Pass.Calls || p.Calls == f.Pass.Calls && p.Took < f.Pass.Took {
			f.Pass = p
		}
	}
	f.GoroutinesWithOrgs = runtime.NumGoroutine()
	for i := range n {
		// A delete that meets the dispatcher's short transaction on the
		// same endpoint may time out waiting for its lock: contention,
		// which the store says a retry resolves.
		err := s.DeleteOrganization(ctx, fmt.Sprintf("org_%05d", i))
		for try := 0; errors.Is(err, store.ErrLockTimeout) && try < 5; try++ {
			err = s.DeleteOrganization(ctx, fmt.Sprintf("org_%05d", i))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(time.Minute); ; {
		c.nextPass(t)
		f.GoroutinesAfterDelete = runtime.NumGoroutine()
		if f.GoroutinesAfterDelete <= f.GoroutinesBefore+slack {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines did not come back: %v", f)
		}
	}
	return f
}
