package statusapi_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/internal/test/eventtest"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// fanOutStore is what the fan-out test writes to and serves: memstore.Store
// or bunstore's Store, which is a KeyStore too.
type fanOutStore interface {
	store.Store
	store.Writer
}

// collected is the event ids a stream's client read, read on a goroutine
// of its own until the stream ends.
type collected struct {
	s    *openStream
	mu   sync.Mutex
	ids  []string
	more chan struct{} // a value after each chunk, shared with other streams
}

func collect(s *openStream, more chan struct{}) *collected {
	c := &collected{s: s, more: more}
	go func() {
		for {
			chunk := s.next()
			if chunk == "<end>" {
				return
			}
			c.mu.Lock()
			c.ids = append(c.ids, frameIDs(chunk)...)
			c.mu.Unlock()
			select {
			case c.more <- struct{}{}:
			default:
			}
		}
	}()
	return c
}

func (c *collected) got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.ids)
}

// streamWithKey opens a stream of h with key, in the background.
func streamWithKey(t *testing.T, h http.Handler, key string) *openStream {
	req := apitest.NewRequest("GET", "/v1/events", key, "Accept", "text/event-stream")
	ctx, cancel := context.WithCancel(req.Context())
	s := &openStream{w: newStreamWriter(), done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(s.done)
		h.ServeHTTP(s.w, req.WithContext(ctx))
	}()
	t.Cleanup(func() { cancel(); <-s.done })
	return s
}

// view is one stream of the fan-out test: its key, the organization it
// reads and its key's restriction, the events it read.
type view struct {
	name  string
	org   string
	r     auth.Restriction
	key   string
	after string // the cursor it opened at
	c     *collected
}

// fanOut opens streams of different views on h (a key of all of org_a,
// one restricted to invoices, one to project p1, a sandbox key, another
// organization's key) and one of org_a whose client never reads, then
// writes in rounds, each round's events spread over the views. After
// each round, settle checks with caughtUp that each stream has read
// exactly what its view may see (the store's own filtered feed after its
// cursor), in order, once; more has a value whenever a client read. The
// rounds' writes overflow the stream that is never read, which is
// dropped (ended) while the others go on.
func fanOut(t *testing.T, st fanOutStore, ks auth.KeyStore, settle func(caughtUp func() error, more <-chan struct{})) {
	is := is.New(t)
	ctx := context.Background()
	sandbox := auth.SandboxOrgID("org_a")
	for _, id := range []string{"org_a", sandbox, "org_b"} {
		is.NoErr(st.PutOrganization(ctx, store.Organization{ID: id, Name: id, Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}))
	}
	for _, p := range []store.Project{{ID: "p1", OrgID: "org_a"}, {ID: "p2", OrgID: "org_a"}, {ID: "p1", OrgID: sandbox}, {ID: "pb", OrgID: "org_b"}} {
		p.Name, p.Status = p.ID, store.ProjectPlanned
		is.NoErr(st.PutProject(ctx, p))
	}
	keys := auth.NewKeys(ks)
	t.Cleanup(func() { _ = keys.Close() })
	h := apitest.Handler(st, keys, nil)
	views := []*view{
		{name: "all", org: "org_a"},
		{name: "invoices", org: "org_a", r: auth.Restriction{Scopes: []auth.Scope{auth.ScopeInvoices}}},
		{name: "p1", org: "org_a", r: auth.Restriction{ProjectIDs: []string{"p1"}}},
		{name: "sandbox", org: sandbox},
		{name: "org_b", org: "org_b"},
	}
	for _, v := range views {
		var err error
		switch {
		case v.org == sandbox:
			v.key, _, err = keys.MintSandbox(ctx, "org_a", v.name, nil)
		default:
			v.key, _, err = keys.MintRestricted(ctx, v.org, v.name, nil, v.r)
		}
		is.NoErr(err)
	}
	slowKey, _, err := keys.Mint(ctx, "org_a", "slow", nil)
	is.NoErr(err)
	slow := streamWithKey(t, h, slowKey)
	is.True(slow.next() != "<end>") // the headers and the cursor; then it reads no more
	more := make(chan struct{}, 1)
	for _, v := range views {
		s := streamWithKey(t, h, v.key)
		ids := frameIDs(s.next())
		if len(ids) == 1 {
			v.after = ids[0]
		}
		v.c = collect(s, more)
	}

	// expected is what the store serves v's key after its cursor.
	expected := func(v *view) []string {
		q := store.EventQuery{After: v.after, Limit: store.MaxLimit, OnlyKinds: v.r.Kinds(), OnlyProjects: v.r.ProjectIDs}
		var ids []string
		for {
			pg, err := st.ListEvents(ctx, v.org, q)
			is.NoErr(err)
			for _, e := range pg.Events {
				ids = append(ids, e.ID)
			}
			if len(pg.Events) < q.Limit {
				return ids
			}
			q.After = pg.Last
		}
	}
	caughtUp := func() error {
		for _, v := range views {
			if got, want := v.c.got(), expected(v); !slices.Equal(got, want) {
				return fmt.Errorf("stream %s read %d events, its view has %d: %.200v, want %.200v", v.name, len(got), len(want), got, want)
			}
		}
		return nil
	}

	n := 0
	invoice := func(org string, project string, status store.InvoiceStatus) store.Invoice {
		i := store.Invoice{ID: fmt.Sprintf("inv_%d", n), OrgID: org, Number: fmt.Sprintf("N-%d", n), Status: status,
			Currency: "EUR", Total: 100, AmountDue: 100, IssuedAt: eventAt, DueAt: eventAt.AddDate(0, 1, 0)}
		if project != "" {
			i.ProjectID = &project
		}
		if status == store.InvoicePaid {
			i.AmountDue, i.PaidAt = 0, &eventAt
		}
		return i
	}
	for round := range 12 {
		var paid []store.Invoice
		for k := range 60 {
			n++
			var i store.Invoice
			switch k % 5 {
			case 0:
				i = invoice("org_a", "p1", store.InvoiceOpen)
			case 1:
				i = invoice("org_a", "p2", store.InvoiceOpen)
			case 2:
				i = invoice("org_a", "", store.InvoiceOpen)
			case 3:
				i = invoice(sandbox, "p1", store.InvoiceOpen)
			case 4:
				i = invoice("org_b", "pb", store.InvoiceOpen)
			}
			is.NoErr(st.PutInvoice(ctx, i))
			paid = append(paid, i)
		}
		for k, i := range paid {
			i.Status, i.AmountDue, i.PaidAt = store.InvoicePaid, 0, &eventAt
			is.NoErr(st.PutInvoice(ctx, i)) // invoice.updated and invoice.paid
			if k%20 == 0 {
				p := store.Project{ID: []string{"p1", "p2"}[k/20%2], OrgID: "org_a", Name: fmt.Sprintf("round %d, %d", round, k), Status: store.ProjectInProgress}
				is.NoErr(st.PutProject(ctx, p))
			}
		}
		settle(caughtUp, more)
	}
	for _, v := range views {
		is.True(len(v.c.got()) > 0)
		select {
		case <-v.c.s.done:
			t.Fatalf("stream %s ended", v.name)
		default:
		}
	}
	select {
	case <-slow.done: // dropped: 12 rounds of org_a's events are more than a stream holds
	default:
		t.Fatalf("the stream that never reads is still open after %d events of its organization", statusapi.StreamQueue)
	}
}

// TestFanOut runs fanOut on memstore.Store, in a synctest bubble, where the
// streams read everything without the clock moving: no stream waits for
// a poll, nor for the client that does not read.
func TestFanOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := memstore.New()
		start := time.Now()
		fanOut(t, st, auth.NewMemoryKeyStore(st), func(caughtUp func() error, _ <-chan struct{}) {
			synctest.Wait()
			if err := caughtUp(); err != nil {
				t.Fatal(err)
			}
		})
		if d := time.Since(start); d != 0 {
			t.Fatalf("the fan-out took %v of the fake clock, want none", d)
		}
	})
}

// TestFanOutOnPostgres runs fanOut on PostgreSQL, woken by its
// notifications: each round's events reach every stream well within
// StreamWriteTimeout, so that none waited for the client that does not
// read.
func TestFanOutOnPostgres(t *testing.T) {
	db, _, cs := migratedSchema(t, "statusapi_fanout")
	st := bunstore.New(db, cs)
	fanOut(t, st, st, func(caughtUp func() error, more <-chan struct{}) {
		t.Helper()
		deadline := time.Now().Add(statusapi.StreamWriteTimeout)
		for {
			err := caughtUp()
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal(err)
			}
			// Wait for any client to read more (or a second, when
			// what is missing never comes).
			select {
			case <-time.After(time.Second):
			case <-more:
			}
		}
	})
}

// countingEvents counts the event reads of the store it wraps.
type countingEvents struct {
	store.Store
	reads atomic.Int64
}

func (c *countingEvents) ListEvents(ctx context.Context, orgID string, q store.EventQuery) (store.EventPage, error) {
	c.reads.Add(1)
	return c.Store.ListEvents(ctx, orgID, q)
}

func (c *countingEvents) LatestEvent(ctx context.Context, orgID string) (string, error) {
	c.reads.Add(1)
	return c.Store.LatestEvent(ctx, orgID)
}

// TestIdleStreamsReadNothing: 100 streams of 20 organizations, open for a
// minute with nothing written, cost a read every StreamSafety for them
// all; a write then costs its organization's five streams one read.
func TestIdleStreamsReadNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		var counting *countingEvents
		a := apitest.New(t, apitest.WithStoreWrapper(func(st store.Store) store.Store {
			if counting == nil {
				counting = &countingEvents{Store: st}
			}
			return counting
		}))
		more := make(chan struct{}, 1)
		var streams []*collected
		for o := range 20 {
			org := fmt.Sprintf("org_%d", o)
			a.Org(org, store.PlanEnterprise)
			a.Mint(org, org)
			for range statusapi.MaxStreamsPerOrganization {
				s := streamWithKey(t, a.Handler, a.Key(org))
				is.Equal(s.next(), reconnect+"\n") // no event yet: no cursor
				streams = append(streams, collect(s, more))
			}
		}
		synctest.Wait()
		opened := counting.reads.Load()
		time.Sleep(time.Minute) // fake time (synctest)
		synctest.Wait()         // the safety read due at the minute too
		idle := counting.reads.Load() - opened
		is.True(idle <= int64(time.Minute/statusapi.StreamSafety)) // the safety reads, one organization at a time
		t.Logf("100 streams opened with %d reads, then read %d times in an idle minute", opened, idle)

		before := counting.reads.Load()
		is.NoErr(a.Store.PutProject(context.Background(), store.Project{ID: "p1", OrgID: "org_3", Name: "P", Status: store.ProjectPlanned}))
		synctest.Wait()
		is.Equal(counting.reads.Load()-before, int64(1)) // one read for the organization's five streams
		for i, c := range streams {
			want := 0
			if i/statusapi.MaxStreamsPerOrganization == 3 {
				want = 1
			}
			is.Equal(len(c.got()), want) // project.created, on org_3's streams only
		}
	})
}

// countingResolver counts the resolves of the resolver it wraps.
type countingResolver struct {
	auth.KeyResolver
	resolves atomic.Int64
}

func (c *countingResolver) Resolve(ctx context.Context, credential string) (auth.Principal, error) {
	c.resolves.Add(1)
	return c.KeyResolver.Resolve(ctx, credential)
}

// TestStreamKeyChecks: open streams resolve their keys again only when
// the resolver reports their organization, once per distinct key, and
// end at their key's expiry.
func TestStreamKeyChecks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		ctx := context.Background()
		var counting *countingResolver
		a, _ := newEventAPI(t, apitest.WithResolver(func(a *apitest.API) auth.KeyResolver {
			counting = &countingResolver{KeyResolver: a.Keys}
			return counting
		}))
		a.Mint("a2", "org_a")
		a.Org("org_b", store.PlanEnterprise)
		a.Mint("b", "org_b")
		expires := a.Clock.Now().Add(90 * time.Second)
		short, _, err := a.Keys.Mint(ctx, "org_a", "short", &expires)
		is.NoErr(err)
		more := make(chan struct{}, 1)
		open := func(key string) *collected {
			s := streamWithKey(t, a.Handler, key)
			is.Equal(s.next(), reconnect+"\n")
			return collect(s, more)
		}
		first, second, other, b := open(a.Key("a")), open(a.Key("a")), open(a.Key("a2")), open(a.Key("b"))
		expiring := open(short)
		synctest.Wait()
		opened := counting.resolves.Load()
		time.Sleep(time.Minute)                    // fake time (synctest)
		is.Equal(counting.resolves.Load(), opened) // no check while nothing is reported

		keys, err := a.Keys.List(ctx, "org_a")
		is.NoErr(err)
		for _, k := range keys {
			if k.Name == "a2" {
				is.NoErr(a.Keys.Revoke(ctx, "org_a", k.ID))
			}
		}
		synctest.Wait()
		is.Equal(counting.resolves.Load()-opened, int64(3)) // org_a's keys: a (two streams), a2, short
		<-other.s.done                                      // ended at once
		for _, c := range []*collected{first, second, b, expiring} {
			select {
			case <-c.s.done:
				t.Fatal("a stream of a valid key ended")
			default:
			}
		}
		start := time.Now()
		<-expiring.s.done
		is.Equal(time.Since(start), 30*time.Second) // at its key's expiry, 90 s after it was minted
	})
}

// seamEvents is an eventtest.Store that, on the first read after
// after, computes the page, then lets events be added (during holds),
// as commits landing while a stream reads its backlog, before it
// answers.
type seamEvents struct {
	*eventtest.Store
	after  string
	during func()
	once   sync.Once
}

func (s *seamEvents) ListEvents(ctx context.Context, orgID string, q store.EventQuery) (store.EventPage, error) {
	pg, err := s.Store.ListEvents(ctx, orgID, q)
	if q.After == s.after {
		s.once.Do(func() {
			s.during()
			synctest.Wait() // the feed read them for the streams that follow it
		})
	}
	return pg, err
}

// TestStreamJoinsTheFeed: a stream that resumes (Last-Event-ID) while
// events commit during its backlog read, and while another stream of
// its organization follows the feed past them, gets each event of its
// view once, in order; so does one filtered by type.
func TestStreamJoinsTheFeed(t *testing.T) {
	for _, tc := range []struct {
		name, target string
		want         []string
	}{
		{"all", "/v1/events", []string{"evt_3", "evt_4", "evt_5", "evt_6", "evt_7", "evt_8", "evt_9"}},
		{"typed", "/v1/events?type=invoice.paid", []string{"evt_4", "evt_6", "evt_8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				is := is.New(t)
				var es *seamEvents
				a := apitest.New(t, apitest.WithStoreWrapper(func(st store.Store) store.Store {
					if es == nil {
						es = &seamEvents{Store: eventtest.New(st.(*memstore.Store)), after: "evt_2"}
					}
					return es
				}))
				a.Org("org_a", store.PlanEnterprise)
				a.Mint("a", "org_a")
				paid := func() store.Event {
					return store.Event{Type: "invoice.paid", Kind: store.KindInvoice, ItemID: "i", CreatedAt: eventAt}
				}
				updated := func() store.Event {
					return store.Event{Type: "invoice.updated", Kind: store.KindInvoice, ItemID: "i", CreatedAt: eventAt}
				}
				es.Add("org_a", updated(), paid(), updated()) // evt_1..3
				more := make(chan struct{}, 1)
				first := startStream(t, a, a.Handler, "/v1/events") // follows the feed from evt_3
				is.Equal(first.opened(), reconnect+"id: evt_3\n\n")
				follower := collect(first, more)
				es.during = func() { es.Add("org_a", paid(), updated(), paid()) } // evt_4..6, while the second reads its backlog
				second := startStream(t, a, a.Handler, tc.target, "Last-Event-ID", "evt_2")
				is.Equal(second.next(), reconnect+"id: evt_2\n\n")
				joiner := collect(second, more)
				synctest.Wait()
				es.Add("org_a", updated(), paid(), updated()) // evt_7..9, once it follows the feed
				synctest.Wait()
				is.Equal(follower.got(), []string{"evt_4", "evt_5", "evt_6", "evt_7", "evt_8", "evt_9"})
				is.Equal(joiner.got(), tc.want) // each once, in order
			})
		})
	}
}
