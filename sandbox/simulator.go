package sandbox

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// Simulator changes the sandboxes it was given, every interval, through
// the store's writers (see the package doc). It is safe for concurrent
// use.
type Simulator struct {
	st  Store
	cfg config

	mu   sync.Mutex
	rng  *rand.Rand
	orgs []string // sandbox organization ids, sorted
	seq  int      // numbers the items it makes
}

// New returns a Simulator on st. It reads the options WithInterval,
// WithChanges, WithSeed, WithClock and WithLogger. It panics if st is nil,
// and with the *option.Error that Validate reports for opts.
func New(st Store, opts ...Option) *Simulator {
	if st == nil {
		panic("sandbox: New needs a Store")
	}
	c := newConfig(opts)
	if err := c.Err(); err != nil {
		panic(err)
	}
	seed := c.seed
	if !c.seeded {
		seed = rand.Uint64()
	}
	return &Simulator{st: st, cfg: c, rng: rand.New(rand.NewPCG(seed, seed^0x5eed))}
}

// Add makes the Simulator drive the sandbox of the live organization
// liveOrgID (seed it first with Seed). Adding it again changes nothing.
func (s *Simulator) Add(liveOrgID string) {
	id := auth.SandboxOrgID(liveOrgID)
	s.mu.Lock()
	defer s.mu.Unlock()
	if i, found := slices.BinarySearch(s.orgs, id); !found {
		s.orgs = slices.Insert(s.orgs, i, id)
	}
}

// Remove stops driving the sandbox of liveOrgID; its data stays.
func (s *Simulator) Remove(liveOrgID string) {
	id := auth.SandboxOrgID(liveOrgID)
	s.mu.Lock()
	defer s.mu.Unlock()
	if i, found := slices.BinarySearch(s.orgs, id); found {
		s.orgs = slices.Delete(s.orgs, i, i+1)
	}
}

// Run calls Step every interval until ctx is done, and then returns nil.
// A failed step is logged, and the next one tried at the next interval.
func (s *Simulator) Run(ctx context.Context) error {
	t := time.NewTicker(s.cfg.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := s.Step(ctx); err != nil && ctx.Err() == nil {
				s.cfg.log.WarnContext(ctx, "sandbox: a simulation step failed", "err", err)
			}
		}
	}
}

// Step makes the changes of one interval (WithChanges, 2 by default) to
// every sandbox the Simulator drives, in the order of their ids, and
// returns the first error (after trying every sandbox). A change is one
// of: an invoice issued or paid, a deliverable moved through review, a
// milestone completed (and the next one started), a message from the
// agency; when there is nothing left to move of a kind, the change makes
// a new item of it.
func (s *Simulator) Step(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var first error
	for _, org := range s.orgs {
		for range s.cfg.changes {
			move := moves[s.rng.IntN(len(moves))]
			if err := move(s, ctx, org); err != nil {
				if first == nil {
					first = fmt.Errorf("sandbox: step of %q: %w", org, err)
				}
				break
			}
		}
	}
	return first
}

// moves are the kinds of changes Step picks from.
var moves = []func(s *Simulator, ctx context.Context, org string) error{
	(*Simulator).moveInvoice,
	(*Simulator).moveDeliverable,
	(*Simulator).moveMilestone,
	(*Simulator).postMessage,
}

var all = store.PageRequest{Page: 1, Limit: store.MaxLimit}

// now returns the clock's time, to the second.
func (s *Simulator) now() time.Time { return s.cfg.now().UTC().Truncate(time.Second) }

// newID returns an id for an item the Simulator makes.
func (s *Simulator) newID(prefix string) string {
	s.seq++
	return prefix + "_sandbox_" + strconv.FormatInt(s.now().Unix(), 36) + "_" + strconv.Itoa(s.seq)
}

// pick returns a random item of items.
func pick[T any](s *Simulator, items []T) T { return items[s.rng.IntN(len(items))] }

// moveInvoice pays an open invoice or issues a draft (in random order of
// preference), or makes a new draft.
func (s *Simulator) moveInvoice(ctx context.Context, org string) error {
	now := s.now()
	steps := []store.InvoiceStatus{store.InvoiceOpen, store.InvoiceDraft}
	if s.rng.IntN(2) == 0 {
		steps[0], steps[1] = steps[1], steps[0]
	}
	for _, from := range steps {
		page, err := s.st.ListInvoices(ctx, org, store.InvoiceQuery{PageRequest: all, Status: from})
		if err != nil {
			return err
		}
		if len(page.Items) == 0 {
			continue
		}
		inv := pick(s, page.Items)
		if from == store.InvoiceOpen {
			inv.Status, inv.AmountDue, inv.PaidAt = store.InvoicePaid, 0, &now
		} else {
			inv.Status, inv.IssuedAt, inv.DueAt = store.InvoiceOpen, now, now.Add(30*24*time.Hour)
		}
		return s.st.PutInvoice(ctx, inv)
	}
	id := s.newID("inv")
	total := int64(50000 + 10000*s.rng.IntN(40))
	return s.st.PutInvoice(ctx, store.Invoice{
		ID: id, OrgID: org, Number: "SBX-" + id[len(id)-6:], Status: store.InvoiceDraft, Currency: "USD",
		Total: total, AmountDue: total, IssuedAt: now, DueAt: now.Add(30 * 24 * time.Hour),
	})
}

// review is the next status of a deliverable in review.
var review = map[store.DeliverableStatus]func(s *Simulator) store.DeliverableStatus{
	store.DeliverableInReview: func(s *Simulator) store.DeliverableStatus {
		if s.rng.IntN(4) == 0 {
			return store.DeliverableRejected
		}
		return store.DeliverableApproved
	},
	store.DeliverablePending:  func(*Simulator) store.DeliverableStatus { return store.DeliverableInReview },
	store.DeliverableRejected: func(*Simulator) store.DeliverableStatus { return store.DeliverableInReview },
}

// moveDeliverable moves a deliverable one step through review (one in
// review first, then a pending one, then a rejected one, resubmitted), or
// makes a new pending one.
func (s *Simulator) moveDeliverable(ctx context.Context, org string) error {
	for _, from := range []store.DeliverableStatus{store.DeliverableInReview, store.DeliverablePending, store.DeliverableRejected} {
		page, err := s.st.ListDeliverables(ctx, org, store.DeliverableQuery{PageRequest: all, Status: from})
		if err != nil {
			return err
		}
		if len(page.Items) == 0 {
			continue
		}
		d := pick(s, page.Items)
		d.Status = review[from](s)
		if d.Status == store.DeliverableInReview && !d.HasFile() {
			f := demoFiles[filePrefix+"review-notes.txt"]
			size := int64(len(f.content))
			d.FileName, d.ContentType, d.SizeBytes, d.FileKey = &f.name, &f.contentType, &size, f.key
		}
		return s.st.PutDeliverable(ctx, d)
	}
	return s.st.PutDeliverable(ctx, store.Deliverable{
		ID: s.newID("dlv"), OrgID: org, ProjectID: projectWebsite, Name: "Revision " + strconv.Itoa(s.seq),
		Status: store.DeliverablePending, CreatedAt: s.now(),
	})
}

// moveMilestone completes a project's milestone in progress and starts
// its next pending one, or starts one; with none left, it adds one.
func (s *Simulator) moveMilestone(ctx context.Context, org string) error {
	now := s.now()
	for _, project := range []string{projectWebsite, projectApp} {
		page, err := s.st.ListMilestones(ctx, org, project, store.MilestoneQuery{PageRequest: all})
		if err != nil {
			return err
		}
		var next *store.Milestone
		for i := range page.Items {
			m := page.Items[i]
			switch m.Status {
			case store.MilestoneInProgress:
				m.Status, m.CompletedAt = store.MilestoneCompleted, &now
				return s.st.PutMilestone(ctx, m)
			case store.MilestonePending:
				if next == nil {
					next = &page.Items[i]
				}
			}
		}
		if next != nil {
			next.Status = store.MilestoneInProgress
			return s.st.PutMilestone(ctx, *next)
		}
	}
	return s.st.PutMilestone(ctx, store.Milestone{
		ID: s.newID("ms"), OrgID: org, ProjectID: projectWebsite, Name: "Iteration " + strconv.Itoa(s.seq),
		Status: store.MilestonePending, DueAt: now.Add(14 * 24 * time.Hour),
	})
}

// updates are the bodies of the agency's messages.
var updates = []string{
	"A new version is up for review.",
	"We have addressed your comments.",
	"Quick update: we are on track for the next milestone.",
	"Could you confirm the copy for this page?",
	"The invoice for this phase has been issued.",
}

// postMessage posts a message from the agency to an open thread, or
// opens a thread when none is.
func (s *Simulator) postMessage(ctx context.Context, org string) error {
	page, err := s.st.ListThreads(ctx, org, store.ThreadQuery{PageRequest: all, Status: store.ThreadOpen})
	if err != nil {
		return err
	}
	now := s.now()
	var thread string
	if len(page.Items) > 0 {
		thread = pick(s, page.Items).ID
	} else {
		project := projectWebsite
		thread = s.newID("thr")
		if err := s.st.PutThread(ctx, store.Thread{
			ID: thread, OrgID: org, ProjectID: &project, Subject: "Weekly update", Status: store.ThreadOpen, CreatedAt: now,
		}); err != nil {
			return err
		}
	}
	return s.st.PutMessage(ctx, store.Message{
		ID: s.newID("msg"), OrgID: org, ThreadID: thread,
		Author: store.Author{Name: "Sam (agency)", Side: store.SideAgency}, Body: pick(s, updates), CreatedAt: now,
	})
}
