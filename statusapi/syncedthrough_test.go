package statusapi_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// syncedStore is the in-memory store with a SyncedThrough the test sets:
// every page of changes (a list asked with UpdatedSince, a page of
// deletions) reports it, as a store with a transaction in flight since
// then would.
type syncedStore struct {
	*memstore.Store
	mu      sync.Mutex
	through time.Time
}

func (s *syncedStore) set(t time.Time) { s.mu.Lock(); s.through = t; s.mu.Unlock() }

// synced sets p's SyncedThrough on a page of changes.
func synced[T any](s *syncedStore, changes bool, p store.Page[T], err error) (store.Page[T], error) {
	if err == nil && changes {
		s.mu.Lock()
		p.SyncedThrough = s.through
		s.mu.Unlock()
	}
	return p, err
}

func (s *syncedStore) ListProjects(ctx context.Context, org string, q store.ProjectQuery) (store.Page[store.Project], error) {
	p, err := s.Store.ListProjects(ctx, org, q)
	return synced(s, !q.UpdatedSince.IsZero(), p, err)
}

func (s *syncedStore) ListMilestones(ctx context.Context, org, project string, q store.MilestoneQuery) (store.Page[store.Milestone], error) {
	p, err := s.Store.ListMilestones(ctx, org, project, q)
	return synced(s, !q.UpdatedSince.IsZero(), p, err)
}

func (s *syncedStore) ListDeliverables(ctx context.Context, org string, q store.DeliverableQuery) (store.Page[store.Deliverable], error) {
	p, err := s.Store.ListDeliverables(ctx, org, q)
	return synced(s, !q.UpdatedSince.IsZero(), p, err)
}

func (s *syncedStore) ListInvoices(ctx context.Context, org string, q store.InvoiceQuery) (store.Page[store.Invoice], error) {
	p, err := s.Store.ListInvoices(ctx, org, q)
	return synced(s, !q.UpdatedSince.IsZero(), p, err)
}

func (s *syncedStore) ListThreads(ctx context.Context, org string, q store.ThreadQuery) (store.Page[store.Thread], error) {
	p, err := s.Store.ListThreads(ctx, org, q)
	return synced(s, !q.UpdatedSince.IsZero(), p, err)
}

func (s *syncedStore) ListThreadMessages(ctx context.Context, org, thread string, q store.MessageQuery) (store.Page[store.Message], error) {
	p, err := s.Store.ListThreadMessages(ctx, org, thread, q)
	return synced(s, !q.UpdatedSince.IsZero(), p, err)
}

func (s *syncedStore) ListMessages(ctx context.Context, org string, q store.MessageQuery) (store.Page[store.Message], error) {
	p, err := s.Store.ListMessages(ctx, org, q)
	return synced(s, !q.UpdatedSince.IsZero(), p, err)
}

func (s *syncedStore) ListDeletions(ctx context.Context, org string, q store.DeletionQuery) (store.Page[store.Deletion], error) {
	p, err := s.Store.ListDeletions(ctx, org, q)
	return synced(s, true, p, err)
}

// newSyncedAPI is a test API on a syncedStore, which it returns too.
func newSyncedAPI(t *testing.T, opts ...statusapi.Option) (*testAPI, *syncedStore) {
	var st *syncedStore
	a := newTestAPIWith(t, setup{
		limits: unlimited.limits,
		wrap: func(s store.Store) store.Store {
			st = &syncedStore{Store: s.(*memstore.Store)}
			return st
		},
	}, opts...)
	return a, st
}

// metaOf returns the raw meta of a list answer.
func metaOf(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var l struct {
		Meta map[string]any `json:"meta"`
	}
	if err := json.Unmarshal(body, &l); err != nil {
		t.Fatal(err)
	}
	return l.Meta
}

// TestSyncedThroughOnEveryPageOfChanges asks every list with and without
// updatedSince, and every page of the deletions: meta.syncedThrough is
// there, in the contract's format, exactly on the pages of changes.
func TestSyncedThroughOnEveryPageOfChanges(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	a, st := newSyncedAPI(t)
	through := now.Add(-90 * time.Second)
	st.set(through.Add(400 * time.Millisecond)) // sent to the second
	is.NoErr(a.store.DeleteInvoice(ctx, "org_a", "i01"))
	is.NoErr(a.store.DeleteDeliverable(ctx, "org_a", "d1"))

	for _, path := range []string{"/v1/projects", "/v1/projects/p1/milestones", "/v1/deliverables", "/v1/invoices",
		"/v1/threads", "/v1/threads/t1/messages", "/v1/messages"} {
		res := a.do("GET", path+"?updatedSince="+at(t0), "a")
		is.Equal(res.Code, 200)
		is.Equal(metaOf(t, res.Body.Bytes())["syncedThrough"], at(through)) // on a list of changes: path
		res = a.do("GET", path+"?updatedSince="+at(t0)+"&page=9", "a")
		is.Equal(metaOf(t, res.Body.Bytes())["syncedThrough"], at(through)) // on every page, past the end too
		res = a.do("GET", path, "a")
		is.Equal(res.Code, 200)
		_, there := metaOf(t, res.Body.Bytes())["syncedThrough"]
		is.True(!there) // left out of a list without updatedSince, though the store filled it
	}
	for _, q := range []string{"", "&limit=1", "&limit=1&page=2", "&page=5", "&type=invoice"} {
		res := a.do("GET", "/v1/deletions?since="+at(t0)+q, "a")
		is.Equal(res.Code, 200)
		is.Equal(metaOf(t, res.Body.Bytes())["syncedThrough"], at(through)) // on every page of deletions
	}
	res := a.do("GET", "/v1/deletions?since="+at(t0), "invoices:read") // a restricted key
	is.Equal(metaOf(t, res.Body.Bytes())["syncedThrough"], at(through))

	st.set(time.Time{})                                                    // a store that breaks its promise
	res = a.do("GET", "/v1/invoices?updatedSince="+at(t0)+"&limit=3", "a") // not an answer cached before
	_, there := metaOf(t, res.Body.Bytes())["syncedThrough"]
	is.True(!there) // no time is made up
}

// TestSyncedThroughAndRevalidation shows that syncedThrough, which
// follows the store's clock, costs no 304: the ETag leaves it out. With
// the response cache or without, each 200 has the store's new one once
// the one kept is over a second old, and the same ETag.
func TestSyncedThroughAndRevalidation(t *testing.T) {
	for _, cached := range []bool{true, false} {
		t.Run(map[bool]string{true: "cached", false: "not cached"}[cached], func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			var opts []statusapi.Option
			if !cached {
				opts = append(opts, statusapi.WithoutResponseCache())
			}
			a, st := newSyncedAPI(t, opts...)
			first, second := now.Add(-time.Minute), now
			st.set(first)
			target := "/v1/projects?updatedSince=" + at(t0)
			one := a.do("GET", target, "a")
			if cached {
				// A page of projects comes without its version
				// (store.Page.Version): the cache keeps the second answer.
				is.Equal(a.do("GET", target, "a").Body.String(), one.Body.String())
			}
			st.set(second)
			two := a.do("GET", target, "a")
			is.Equal(two.Header().Get("ETag"), one.Header().Get("ETag"))                            // the same items: the same tag
			is.Equal(metaOf(t, two.Body.Bytes())["syncedThrough"], at(second))                      // never an old one in a 200
			is.Equal(a.do("GET", target, "a", "If-None-Match", one.Header().Get("ETag")).Code, 304) // revalidates
			is.Equal(a.do("GET", "/v1/deletions?since="+at(t0), "a", "If-None-Match",
				a.do("GET", "/v1/deletions?since="+at(t0), "a").Header().Get("ETag")).Code, 304) // the deletions too

			a.clock.Advance(time.Second)
			p, err := a.store.GetProject(ctx, "org_a", "p2")
			is.NoErr(err)
			p.Name += ", renamed"
			is.NoErr(a.store.PutProject(ctx, p))
			three := a.do("GET", target, "a", "If-None-Match", one.Header().Get("ETag"))
			is.Equal(three.Code, 200)                                            // a change is a new body
			is.Equal(metaOf(t, three.Body.Bytes())["syncedThrough"], at(second)) // with the syncedThrough of its data
			is.True(three.Header().Get("ETag") != one.Header().Get("ETag"))
		})
	}
}

// TestSyncedThroughOnMemory reads the in-memory store's own
// syncedThrough: with nothing in flight, the current second, on every
// page of changes.
func TestSyncedThroughOnMemory(t *testing.T) {
	is := is.New(t)
	a := newTestAPIWith(t, unlimited)
	a.clock.Advance(1500 * time.Millisecond)
	want := at(a.clock.Now())
	targets := []string{"/v1/deletions?since="}
	for _, rt := range table { // every list that takes updatedSince
		if rt.UpdatedSince {
			targets = append(targets, rt.Example+"?updatedSince=")
		}
	}
	is.True(len(targets) > 1)
	for _, target := range targets {
		res := a.do("GET", target+at(t0), "a")
		is.Equal(res.Code, 200)
		is.Equal(metaOf(t, res.Body.Bytes())["syncedThrough"], want) // the store's current second: target
	}
}

// TestCachedSyncedThroughFollowsTheClock asks the same page of changes
// again as the clock moves while the data do not: the cache serves it
// within the second, and every 200 carries a syncedThrough at most a
// second behind the current second, cached or not; a revalidation of the
// first answer is still a 304.
func TestCachedSyncedThroughFollowsTheClock(t *testing.T) {
	is := is.New(t)
	a := newTestAPIWith(t, unlimited)
	for _, target := range []string{"/v1/projects?updatedSince=" + at(t0), "/v1/milestones?updatedSince=" + at(t0) + "&limit=1"} {
		first := a.do("GET", target, "a")
		is.Equal(first.Code, 200)
		is.Equal(a.do("GET", target, "a").Body.String(), first.Body.String()) // served again within the second
		for range 5 {
			a.clock.Advance(1500 * time.Millisecond)
			res := a.do("GET", target, "a")
			is.Equal(res.Code, 200)
			synced, err := time.Parse(time.RFC3339, metaOf(t, res.Body.Bytes())["syncedThrough"].(string))
			is.NoErr(err)
			behind := a.clock.Now().Truncate(time.Second).Sub(synced)
			is.True(behind >= 0 && behind <= time.Second)                  // at most a second behind the current second, data unchanged
			is.Equal(res.Header().Get("ETag"), first.Header().Get("ETag")) // the same data, the same tag
		}
		is.Equal(a.do("GET", target, "a", "If-None-Match", first.Header().Get("ETag")).Code, 304) // the older answer still revalidates
	}
}
