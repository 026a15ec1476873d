package webhook

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clientstatus/clientstatus/internal/pace"

	"github.com/clientstatus/clientstatus/internal/eventwire"
	"github.com/clientstatus/clientstatus/store"
)

// Dispatcher delivers an organization's events to its webhook endpoints.
// It runs beside the handler, in every replica: replicas on one store
// share the work, so each event reaches each endpoint once (at least once
// when a replica dies in the middle of an attempt: another makes it again
// once the claim expires).
//
// One replica queues (the leader, WithLeader; each one otherwise): woken by the store's events (store.Events.WatchEvents), it
// queues the new events of the enabled endpoints of the organizations
// woken, and on each poll those of a bounded share of the others (moving
// the endpoint's cursor in the same write, so two replicas never queue
// one event twice). Every replica claims due deliveries and makes their
// attempts, WithConcurrency at a time. A failed attempt is retried on the
// schedule (WithSchedule), a 410 Gone disables the endpoint at once, and
// DisableAfter of failures disables it too. On PostgreSQL, give it the
// store of bunstore's DispatcherStore, a pool of its own, and
// WithLeader(that store).
//
// It never logs a secret or a response body, and stores neither.
type Dispatcher struct {
	st     Store
	ev     store.Events
	seal   sealer
	cfg    config
	client *http.Client

	// trouble paces the pass loop's lines about a failing store (StoreLogInterval).
	trouble pace.Pacer

	// retry is the soonest retry this dispatcher's own attempts scheduled
	// and no claim has looked for since.
	retry struct {
		sync.Mutex
		at time.Time
	}

	mu      sync.Mutex
	cancel  context.CancelFunc // the running pass loop's
	abort   context.CancelFunc // the in-flight attempts'
	done    chan struct{}
	running bool
}

// NewDispatcher returns a dispatcher of the endpoints kept in st, whose
// secrets are sealed with key (the key given to NewEndpoints), of the
// events of ev. Start or Run it. It panics when st or ev is nil, and with
// the *option.Error that Validate reports for opts.
func NewDispatcher(st Store, ev store.Events, key []byte, opts ...Option) *Dispatcher {
	if st == nil || ev == nil {
		panic("webhook: NewDispatcher: nil store or events")
	}
	cfg := newConfig(opts)
	if err := cfg.Err(); err != nil {
		panic(err)
	}
	return &Dispatcher{st: st, ev: ev, seal: newSealer(key), cfg: cfg, client: newClient(cfg)}
}

// Start runs the dispatcher in the background until Stop. Its context
// only carries values: cancel nothing through it, call Stop.
func (d *Dispatcher) Start(ctx context.Context) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.running {
		panic("webhook: Dispatcher started twice")
	}
	ctx = context.WithoutCancel(ctx)
	loop, cancel := context.WithCancel(ctx)
	attempts, abort := context.WithCancel(ctx)
	d.cancel, d.abort, d.done, d.running = cancel, abort, make(chan struct{}), true
	go func() {
		defer close(d.done)
		d.run(loop, attempts)
	}()
}

// Stop stops a started dispatcher gracefully: it starts no new attempt
// and waits for those in flight until ctx is done, then abandons them
// (their deliveries stay claimed until the claim expires, then any replica
// makes them again). It returns ctx's error when it had to abandon any.
func (d *Dispatcher) Stop(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.running {
		return nil
	}
	d.running = false
	d.cancel()
	select {
	case <-d.done:
		d.abort()
		return nil
	case <-ctx.Done():
		d.abort()
		<-d.done
		return ctx.Err()
	}
}

// Run runs the dispatcher until ctx is done, then waits for the attempts
// in flight (each bounded by its timeout) and returns nil. Use Start and
// Stop to bound that wait.
func (d *Dispatcher) Run(ctx context.Context) error {
	attempts, abort := context.WithCancel(context.WithoutCancel(ctx))
	defer abort()
	d.run(ctx, attempts)
	return nil
}

// sweepEvery is how many polls of the leading replica it takes to look at
// one more organization for new events besides those the store woke:
// the safety net for notifications the store failed to send, at a cost
// per poll that stays small however many organizations have endpoints
// (see docs/performance.md).
const sweepEvery = 10

// claimEvery is how many polls may pass without a claim while nothing is
// known to be due: a poll claims when the last claim found jobs, when
// this dispatcher queued for an organization, when a retry of its own
// attempts falls due, and otherwise on every claimEvery-th poll, which
// finds the rest (another replica's retries, expired claims,
// redeliveries). A pass woken by the store or by a finished attempt
// claims always.
const claimEvery = 5

// Leader elects which of the dispatchers on one store queues
// (WithLeader): bunstore's Store is one, with a PostgreSQL advisory
// lock. The dispatcher whose LeadWebhooks reports true lists the
// endpoints and queues their events; every dispatcher claims and
// attempts. Queueing by two at once (a lead changing hands) is safe, only
// dearer.
type Leader interface {
	// LeadWebhooks returns a function reporting whether this caller
	// leads, asked on each poll, taking the lead when it is free; the
	// lead is let go when ctx is done.
	LeadWebhooks(ctx context.Context) func(context.Context) bool
}

// queueing is what the leading dispatcher knows of the endpoints it
// queues for: as last listed, with the cursors its own queueing moved.
type queueing struct {
	byOrg   map[string][]store.WebhookEndpoint
	orgs    []string        // of byOrg, sorted
	next    int             // the sweep's place in orgs
	polls   int             // listings made, for the sweep's pace
	pending map[string]bool // organizations whose queueing was cut short
}

// run is the pass loop: it returns once loop is done and every attempt it
// started has ended (attempts runs them).
//
// On each poll the dispatcher asks whether it leads (WithLeader; without
// one it leads always). The leader lists the enabled endpoints
// on each poll and queues the events of the organizations the store
// woke, of those with an endpoint new in the list, and of the next of
// the others every sweepEvery polls (all of them on its first pass); woken between
// polls, it queues for the organizations woken from its listing, with
// the cursors it moved. Each pass then claims (an idle poll only on
// claimEvery's terms). A finished attempt wakes
// the loop to claim again only while the last claim took all it asked
// for. One watch follows each organization with an enabled endpoint
// while the dispatcher leads.
func (d *Dispatcher) run(loop, attempts context.Context) {
	wake := make(chan struct{}, 1)
	w := &watches{cancel: map[string]context.CancelFunc{}, woken: map[string]bool{}, wake: wake}
	defer w.stop()
	slots := make(chan struct{}, d.cfg.concurrency)
	var inflight sync.WaitGroup
	defer inflight.Wait()
	tick := time.NewTicker(d.cfg.poll)
	defer tick.Stop()
	leads := func(context.Context) bool { return true }
	if d.cfg.leader != nil {
		leads = d.cfg.leader.LeadWebhooks(loop)
	}
	var more atomic.Bool // the last claim took all it asked for
	q := &queueing{byOrg: map[string][]store.WebhookEndpoint{}, pending: map[string]bool{}}
	polled, leading := true, false
	found, skipped := true, 0 // whether the last claim found jobs; polls since the last claim
	for {
		var todo map[string]bool
		switch {
		case polled:
			was := leading
			leading = leads(loop)
			if !leading {
				// A follower only claims; should it lead, every
				// endpoint it lists is new to it.
				w.follow(loop, nil, d.ev)
				w.take()
				clear(q.byOrg)
				break
			}
			todo = d.list(loop, w, q, !was)
		case leading:
			todo = w.take()
		}
		for org := range todo {
			delete(q.pending, org)
			for i := range q.byOrg[org] {
				err := d.enqueue(loop, &q.byOrg[org][i])
				if err != nil && loop.Err() == nil {
					q.pending[org] = true // queued for on the next poll
					if !errors.Is(err, store.ErrConflict) {
						d.storeTrouble("webhook: queueing events", err, "org", org, "endpoint", q.byOrg[org][i].ID)
					}
				}
			}
		}
		if polled && !found && len(todo) == 0 && !d.retryDue() && skipped < claimEvery-1 {
			skipped++
		} else {
			skipped = 0
			found = d.claim(loop, attempts, slots, &inflight, &more, wake)
		}
		select {
		case <-loop.Done():
			return
		case <-wake:
			polled = false
		case <-tick.C:
			polled = true
		}
	}
}

// claim claims due jobs while slots are free and starts their attempts;
// it reports whether it found any.
func (d *Dispatcher) claim(loop, attempts context.Context, slots chan struct{}, inflight *sync.WaitGroup, more *atomic.Bool, wake chan struct{}) bool {
	d.retry.Lock()
	if !d.retry.at.After(d.cfg.now()) {
		d.retry.at = time.Time{}
	}
	d.retry.Unlock()
	found := false
	for free := cap(slots) - len(slots); free > 0 && loop.Err() == nil; free = cap(slots) - len(slots) {
		jobs, err := d.st.ClaimWebhookJobs(loop, d.cfg.now(), free, d.cfg.claim)
		if err != nil {
			if loop.Err() == nil {
				d.storeTrouble("webhook: claiming deliveries", err)
			}
			break
		}
		more.Store(len(jobs) == free)
		found = found || len(jobs) > 0
		for _, j := range jobs {
			slots <- struct{}{}
			inflight.Go(func() {
				defer func() {
					<-slots
					if more.Load() {
						signal(wake)
					}
				}()
				d.attempt(attempts, j)
			})
		}
		if len(jobs) < free {
			break
		}
	}
	return found
}

// retryDue reports whether a retry that this dispatcher's attempts
// scheduled is due.
func (d *Dispatcher) retryDue() bool {
	d.retry.Lock()
	defer d.retry.Unlock()
	return !d.retry.at.IsZero() && !d.retry.at.After(d.cfg.now())
}

// retryAt notes a retry scheduled at t.
func (d *Dispatcher) retryAt(t time.Time) {
	d.retry.Lock()
	defer d.retry.Unlock()
	if d.retry.at.IsZero() || t.Before(d.retry.at) {
		d.retry.at = t
	}
}

// list lists the enabled endpoints into q, follows their organizations,
// and returns the organizations to queue for: those woken, those with an
// endpoint new in the list, those left pending, and the sweep's next
// (every one when all).
func (d *Dispatcher) list(ctx context.Context, w *watches, q *queueing, all bool) map[string]bool {
	endpoints, err := d.st.EnabledWebhookEndpoints(ctx)
	if err != nil {
		if ctx.Err() == nil {
			d.storeTrouble("webhook: listing endpoints", err)
		}
		return nil
	}
	known := map[[2]string]bool{}
	for org, es := range q.byOrg {
		for _, e := range es {
			known[[2]string{org, e.ID}] = true
		}
	}
	byOrg := map[string][]store.WebhookEndpoint{}
	todo := w.take()
	maps.Copy(todo, q.pending)
	for _, e := range endpoints {
		if !known[[2]string{e.OrgID, e.ID}] {
			todo[e.OrgID] = true // new, or enabled again
		}
		byOrg[e.OrgID] = append(byOrg[e.OrgID], e)
	}
	q.byOrg = byOrg
	q.orgs = w.follow(ctx, byOrg, d.ev)
	q.polls++
	sweep := 0
	if q.polls%sweepEvery == 0 {
		sweep = 1
	}
	if all {
		sweep, q.next = len(q.orgs), 0
	}
	for n := 0; n < min(sweep, len(q.orgs)); n++ {
		q.next %= len(q.orgs)
		todo[q.orgs[q.next]] = true
		q.next++
	}
	return todo
}

// watches are a dispatcher's watches of its organizations' events: one
// per organization with an enabled endpoint, each marking its
// organization woken and waking the pass loop.
type watches struct {
	cancel map[string]context.CancelFunc // only the pass loop uses it
	wake   chan struct{}

	mu    sync.Mutex
	woken map[string]bool
}

// follow starts a watch for each organization of byOrg not watched yet
// and ends those of the organizations no longer in it; it returns
// byOrg's organizations, sorted.
func (w *watches) follow(ctx context.Context, byOrg map[string][]store.WebhookEndpoint, ev store.Events) []string {
	for org, cancel := range w.cancel {
		if byOrg[org] == nil {
			cancel()
			delete(w.cancel, org)
		}
	}
	for org := range byOrg {
		if w.cancel[org] == nil {
			wctx, cancel := context.WithCancel(ctx)
			w.cancel[org] = cancel
			go w.forward(org, ev.WatchEvents(wctx, org))
		}
	}
	return slices.Sorted(maps.Keys(byOrg))
}

// forward marks org woken and wakes the loop for each value of from,
// until from is closed.
func (w *watches) forward(org string, from <-chan struct{}) {
	for range from {
		w.mu.Lock()
		w.woken[org] = true
		w.mu.Unlock()
		signal(w.wake)
	}
}

// take returns the organizations woken since the last take, and forgets
// them.
func (w *watches) take() map[string]bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	got := w.woken
	w.woken = map[string]bool{}
	return got
}

// stop ends every watch.
func (w *watches) stop() {
	for _, cancel := range w.cancel {
		cancel()
	}
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// enqueue queues for e the events after its cursor that it receives and
// moves e's cursor with them. When the store refuses (another replica
// moved the cursor first, or held the endpoint's row, or the endpoint was
// disabled), it reads the endpoint again and tries again, twice; then
// it returns the conflict.
func (d *Dispatcher) enqueue(ctx context.Context, e *store.WebhookEndpoint) error {
	for try := 0; ; try++ {
		err := d.queue(ctx, e)
		if !errors.Is(err, store.ErrConflict) || try == 2 {
			return err
		}
		fresh, err := d.st.GetWebhookEndpoint(ctx, e.OrgID, e.ID)
		if errors.Is(err, store.ErrNotFound) {
			return nil // deleted: the next listing drops it
		}
		if err != nil {
			return err
		}
		*e = fresh
		if !e.Enabled {
			return nil // the next listing drops it
		}
	}
}

// queue queues for e the events after its cursor that it receives, a
// page at a time, each page in one write with the cursor's move.
func (d *Dispatcher) queue(ctx context.Context, e *store.WebhookEndpoint) error {
	for {
		p, err := d.ev.ListEvents(ctx, e.OrgID, store.EventQuery{After: e.Cursor, Limit: store.MaxLimit})
		if errors.Is(err, store.ErrUnknownCursor) {
			// Disabled for longer than events are kept: what was
			// missed is gone; start again from the newest event.
			latest, err := d.ev.LatestEvent(ctx, e.OrgID)
			if err != nil {
				return err
			}
			d.cfg.logger.Warn("webhook: endpoint's cursor expired; delivering from the newest event", "org", e.OrgID, "endpoint", e.ID)
			if err := d.st.EnqueueWebhookJobs(ctx, e.OrgID, e.ID, e.Cursor, latest, nil); err != nil {
				return err
			}
			e.Cursor = latest
			return nil
		}
		if err != nil {
			return err
		}
		if len(p.Events) == 0 || p.Last == e.Cursor {
			return nil
		}
		var jobs []store.WebhookJob
		now := d.cfg.now()
		for _, ev := range p.Events {
			if !matches(*e, ev) {
				continue
			}
			body, err := eventwire.Encode(ev)
			if err != nil {
				return err
			}
			jobs = append(jobs, store.WebhookJob{EventID: ev.ID, EventType: ev.Type, Body: body, Due: now, QueuedAt: now})
		}
		if err := d.st.EnqueueWebhookJobs(ctx, e.OrgID, e.ID, e.Cursor, p.Last, jobs); err != nil {
			return err
		}
		e.Cursor = p.Last
		if len(p.Events) < store.MaxLimit {
			return nil
		}
	}
}

// StoreLogInterval is the least time between two of a dispatcher's log
// lines about a store that fails (listing endpoints, queueing, claiming):
// the first failure is logged at once, then at most one line per interval,
// with the number of failures since (failures), so that an outage costs a
// few lines, not one per pass.
const StoreLogInterval = time.Minute

// storeTrouble logs a failure of the store, paced by StoreLogInterval.
func (d *Dispatcher) storeTrouble(msg string, err error, args ...any) {
	if n := d.trouble.Tick(d.cfg.now(), StoreLogInterval); n > 0 {
		d.cfg.logger.Warn(msg, append(args, "err", err, "failures", n)...)
	}
}
