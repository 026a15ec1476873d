package statusapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/internal/test/eventtest"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
)

// newEventAPI is a test API on an eventStore, with org_a on the
// enterprise plan (no rate limit to trip over) and its key "a".
func newEventAPI(t *testing.T, opts ...apitest.Option) (*apitest.API, *eventtest.Store) {
	var es *eventtest.Store
	a := apitest.New(t, append([]apitest.Option{apitest.WithStoreWrapper(func(st store.Store) store.Store {
		if es == nil {
			es = eventtest.New(st.(*memstore.Store))
		}
		return es
	}), apitest.WithCheck(func(t testing.TB, req *http.Request, res *httptest.ResponseRecorder) {
		checkResponse(t, spec, req, res)
	})}, opts...)...)
	a.Org("org_a", store.PlanEnterprise)
	a.Mint("a", "org_a")
	return a, es
}

var eventAt = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// someEvents are one event of each family.
func someEvents() []store.Event {
	return []store.Event{
		{Type: "project.created", Kind: store.KindProject, ItemID: "p1", ProjectID: "p1", CreatedAt: eventAt},
		{Type: "invoice.updated", Kind: store.KindInvoice, ItemID: "inv_1", ProjectID: "p1", CreatedAt: eventAt},
		{Type: "invoice.paid", Kind: store.KindInvoice, ItemID: "inv_1", ProjectID: "p1", PreviousStatus: "open", CreatedAt: eventAt},
		{Type: "invoice.created", Kind: store.KindInvoice, ItemID: "inv_2", CreatedAt: eventAt}, // a retainer invoice
		{Type: "message.created", Kind: store.KindMessage, ItemID: "msg_1", ProjectID: "p2", ThreadID: "t1", CreatedAt: eventAt},
		{Type: "deliverable.deleted", Kind: store.KindDeliverable, ItemID: "d1", ProjectID: "p2", CreatedAt: eventAt.Add(time.Second)},
	}
}

func TestEventFeed(t *testing.T) {
	is := is.New(t)
	a, es := newEventAPI(t)
	es.Add("org_a", someEvents()...)
	es.Add("org_b", store.Event{Type: "project.created", Kind: store.KindProject, ItemID: "pb", ProjectID: "pb", CreatedAt: eventAt})

	res := a.Do("GET", "/v1/events?limit=2", "a")
	is.Equal(res.Code, 200)
	l := listOf(t, res)
	is.Equal(l.ids(), []string{"evt_1", "evt_2"}) // oldest first, another organization's never
	is.Equal(l.Meta.Page, 1)
	is.Equal(l.Meta.PerPage, 2)
	is.Equal(l.Meta.Total, 6) // all the events after after
	is.Equal(res.Header().Get("Link"), `</v1/events?after=evt_2&limit=2>; rel="next"`)
	is.True(res.Header().Get("ETag") != "")                                                               // revalidated as any list
	is.True(strings.Contains(res.Header().Get("Vary"), "Accept"))                                         // the URL also streams
	is.Equal(res.Header().Get("Cache-Control"), "private, no-cache")                                      // as any list
	is.Equal(a.Do("GET", "/v1/events?limit=2", "a", "If-None-Match", res.Header().Get("ETag")).Code, 304) // unchanged

	res = a.Do("GET", "/v1/events?after=evt_2&limit=2", "a")
	l = listOf(t, res)
	is.Equal(l.ids(), []string{"evt_3", "evt_4"})
	is.Equal(l.Meta.Total, 4)

	res = a.Do("GET", "/v1/events?after=evt_6", "a")
	l = listOf(t, res)
	is.Equal(len(l.Data), 0)
	is.Equal(res.Header().Get("Link"), `</v1/events?after=evt_6>; rel="next"`) // an empty page does not go back
	is.Equal(res.Body.String(), `{"data":[],"meta":{"page":1,"per_page":20,"total":0}}`+"\n")
}

func TestEventJSON(t *testing.T) {
	is := is.New(t)
	a, es := newEventAPI(t)
	es.Add("org_a", someEvents()...)
	res := a.Do("GET", "/v1/events", "a")
	is.Equal(res.Code, 200)
	var body struct {
		Data []json.RawMessage `json:"data"`
	}
	is.NoErr(json.Unmarshal(res.Body.Bytes(), &body))
	want := []string{
		`{"id":"evt_1","type":"project.created","createdAt":"2026-03-01T09:00:00Z","data":{"object":"project","id":"p1","projectId":"p1","previousStatus":null}}`,
		`{"id":"evt_2","type":"invoice.updated","createdAt":"2026-03-01T09:00:00Z","data":{"object":"invoice","id":"inv_1","projectId":"p1","previousStatus":null}}`,
		`{"id":"evt_3","type":"invoice.paid","createdAt":"2026-03-01T09:00:00Z","data":{"object":"invoice","id":"inv_1","projectId":"p1","previousStatus":"open"}}`,
		`{"id":"evt_4","type":"invoice.created","createdAt":"2026-03-01T09:00:00Z","data":{"object":"invoice","id":"inv_2","projectId":null,"previousStatus":null}}`,
		`{"id":"evt_5","type":"message.created","createdAt":"2026-03-01T09:00:00Z","data":{"object":"message","id":"msg_1","projectId":"p2","threadId":"t1","previousStatus":null}}`,
		`{"id":"evt_6","type":"deliverable.deleted","createdAt":"2026-03-01T09:00:01Z","data":{"object":"deliverable","id":"d1","projectId":"p2","previousStatus":null}}`,
	}
	is.Equal(len(body.Data), len(want))
	for i := range want {
		is.Equal(string(body.Data[i]), want[i]) // the wire form of each family
	}
}

func TestEventFeedTypes(t *testing.T) {
	is := is.New(t)
	a, es := newEventAPI(t)
	es.Add("org_a", someEvents()...)
	l := listOf(t, a.Do("GET", "/v1/events?type=invoice.paid,deliverable.deleted", "a"))
	is.Equal(l.ids(), []string{"evt_3", "evt_6"})
	is.Equal(l.Meta.Total, 2)
	res := a.Do("GET", "/v1/events?type=invoice.paid&after=evt_3", "a")
	is.Equal(res.Header().Get("Link"), `</v1/events?after=evt_3&type=invoice.paid>; rel="next"`)

	for _, ok := range []string{"project.on_hold", "thread.resolved", "message.deleted", "deliverable.in_review", "milestone.completed", "invoice.void"} {
		is.Equal(a.Do("GET", "/v1/events?type="+ok, "a").Code, 200) // a valid type
	}
	for _, bad := range []string{"invoice", "invoice.", "invoice.shipped", "message.open", "thread.paid", ".created",
		"Invoice.paid", "invoice.paid,", "invoice.paid,,project.created", "webhook.created"} {
		res := a.Do("GET", "/v1/events?type="+bad, "a")
		is.Equal(res.Code, 400) // an invalid type
		is.True(strings.Contains(res.Body.String(), `"param":"type"`))
	}
}

func TestEventFeedParams(t *testing.T) {
	is := is.New(t)
	a, es := newEventAPI(t)
	es.Add("org_a", someEvents()...)
	es.Expired["evt_1"] = true
	for _, tc := range []struct{ query, param string }{
		{"after=evt_99", "after"},
		{"after=evt_1", "after"}, // expired
		{"limit=0", "limit"},
		{"limit=101", "limit"},
		{"page=2", "page"}, // the feed has no pages
		{"since=2026-03-01T09:00:00Z", "since"},
		{"after=", "after"},
		{"after=evt_2&after=evt_3", "after"},
	} {
		res := a.Do("GET", "/v1/events?"+tc.query, "a")
		is.Equal(res.Code, 400) // tc.query
		is.True(strings.Contains(res.Body.String(), `"param":"`+tc.param+`"`))
	}
	is.Equal(a.Do("GET", "/v1/events", "").Code, 401)
	is.Equal(a.Do("POST", "/v1/events", "a").Code, 405)
	is.Equal(a.Do("HEAD", "/v1/events", "a").Code, 200)
}

func TestEventFeedRestrictedKeys(t *testing.T) {
	is := is.New(t)
	a, es := newEventAPI(t)
	es.Add("org_a", someEvents()...)
	for _, p := range []string{"p1", "p2"} {
		is.NoErr(a.Store.PutProject(context.Background(), store.Project{ID: p, OrgID: "org_a", Name: p, Status: store.ProjectInProgress}))
	}
	mint := func(name string, r auth.Restriction) {
		key, _, err := a.Keys.MintRestricted(context.Background(), "org_a", name, nil, r)
		is.NoErr(err)
		a.SetKey(name, key)
	}
	mint("invoices", auth.Restriction{Scopes: []auth.Scope{auth.ScopeInvoices}})
	mint("p1", auth.Restriction{ProjectIDs: []string{"p1"}})
	mint("threads-p2", auth.Restriction{Scopes: []auth.Scope{auth.ScopeThreads}, ProjectIDs: []string{"p2"}})
	mint("nothing", auth.Restriction{Scopes: []auth.Scope{auth.ScopeDeliverables}, ProjectIDs: []string{"p1"}})

	is.Equal(listOf(t, a.Do("GET", "/v1/events", "invoices")).ids(), []string{"evt_2", "evt_3", "evt_4"})
	is.Equal(listOf(t, a.Do("GET", "/v1/events", "p1")).ids(), []string{"evt_1", "evt_2", "evt_3"}) // not the retainer invoice
	is.Equal(listOf(t, a.Do("GET", "/v1/events", "threads-p2")).ids(), []string{"evt_5"})
	l := listOf(t, a.Do("GET", "/v1/events", "nothing"))
	is.Equal(len(l.Data), 0) // events need no scope of their own: none readable is an empty feed, not a 403
	is.Equal(l.Meta.Total, 0)
}

// TestEventFeedFailures: an organization without API access is 403, a
// spent budget 429, a store that is down 503, one that fails otherwise
// 500, on the feed as on the stream.
func TestEventFeedFailures(t *testing.T) {
	is := is.New(t)
	a, es := newEventAPI(t)
	o := a.Org("org_off", store.PlanStarter)
	o.APIEnabled = false
	a.PutOrg(o)
	a.Mint("off", "org_off")
	a.Org("org_s", store.PlanStarter)
	a.Mint("s", "org_s")
	for _, accept := range []string{"application/json", "text/event-stream"} {
		is.Equal(a.Do("GET", "/v1/events", "off", "Accept", accept).Code, 403)
	}
	for range 60 { // the starter budget, spent without the document's check (slow under -race)
		res := httptest.NewRecorder()
		a.Handler.ServeHTTP(res, a.Request("GET", "/v1/events", "s"))
		is.Equal(res.Code, 200)
	}
	is.Equal(a.Do("GET", "/v1/events", "s").Code, 429)
	is.Equal(a.Do("GET", "/v1/events", "s", "Accept", "text/event-stream").Code, 429) // a stream counts as a request

	es.Fail = fmt.Errorf("fake: %w", store.ErrUnavailable)
	for _, accept := range []string{"application/json", "text/event-stream"} {
		res := a.Do("GET", "/v1/events", "a", "Accept", accept)
		is.Equal(res.Code, 503)
		is.Equal(res.Header().Get("Retry-After"), "1")
	}
	es.Fail = errors.New("fake: broken")
	for _, accept := range []string{"application/json", "text/event-stream"} {
		is.Equal(a.Do("GET", "/v1/events", "a", "Accept", accept).Code, 500)
	}
	is.True(!strings.Contains(a.Logs.String(), a.Key("a"))) // no key in the logs
}
