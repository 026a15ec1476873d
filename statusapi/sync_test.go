package statusapi_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
)

// at formats t as the contract's timestamps.
func at(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// TestUpdatedSince shows a client asking each list for what changed since
// a time: only the items changed since, oldest change first, with their
// count.
func TestUpdatedSince(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	a := newTestAPIWith(t, unlimited)
	before := listOf(t, a.do("GET", "/v1/invoices?limit=100", "a"))
	is.True(before.Meta.Total > 3)

	a.clock.Advance(time.Minute)
	since := a.clock.Now()
	p, err := a.store.GetProject(ctx, "org_a", "p2")
	is.NoErr(err)
	p.Name = "App, renamed"
	is.NoErr(a.store.PutProject(ctx, p))
	a.clock.Advance(time.Second)
	d, err := a.store.GetDeliverable(ctx, "org_a", "d1")
	is.NoErr(err)
	d.Name = "Logo, final"
	is.NoErr(a.store.PutDeliverable(ctx, d))

	l := listOf(t, a.do("GET", "/v1/projects?updatedSince="+at(since), "a"))
	is.Equal(l.ids(), []string{"p2"}) // only what changed
	is.Equal(l.Meta.Total, 1)
	is.Equal(l.Data[0]["updatedAt"], at(since)) // stamped by the store
	l = listOf(t, a.do("GET", "/v1/deliverables?updatedSince="+at(since), "a"))
	is.Equal(l.ids(), []string{"d1"})
	l = listOf(t, a.do("GET", "/v1/invoices?updatedSince="+at(since), "a"))
	is.Equal(len(l.Data), 0) // nothing changed
	is.Equal(l.Meta.Total, 0)
	l = listOf(t, a.do("GET", "/v1/projects/p1/milestones?updatedSince="+at(since.Add(-time.Hour*24*365)), "a"))
	is.True(l.Meta.Total > 0) // an old bound gives everything, in updatedAt order
	l = listOf(t, a.do("GET", "/v1/projects?updatedSince="+at(t0)+"&status=planned", "a"))
	for _, it := range l.Data {
		is.Equal(it["status"], "planned") // combined with the other filters
	}
	is.Equal(listOf(t, a.do("GET", "/v1/projects?updatedSince="+at(since.Add(time.Hour)), "a")).Meta.Total, 0) // a bound in the future

	for _, bad := range []string{"2026-03-01", "2026-03-01T09:00:00%2B01:00", "2026-03-01T09:00:00.5Z", "yesterday", "2026-13-01T09:00:00Z"} {
		res := a.do("GET", "/v1/invoices?updatedSince="+bad, "a")
		is.Equal(res.Code, 400) // not the contract's format
		is.Equal(errorOf(t, res).Error.Param, "updatedSince")
	}
}

func TestDeletions(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	a := newTestAPIWith(t, unlimited)
	since := a.clock.Now()
	before := listOf(t, a.do("GET", "/v1/projects/p1/milestones?limit=100", "a"))
	is.True(before.Meta.Total > 0)

	a.clock.Advance(time.Second)
	is.NoErr(a.store.DeleteProject(ctx, "org_a", "p1")) // takes its milestones and deliverables
	a.clock.Advance(time.Second)
	is.NoErr(a.store.DeleteInvoice(ctx, "org_a", "i01"))

	res := a.do("GET", "/v1/deletions?since="+at(since), "a")
	is.Equal(res.Code, 200)
	l := listOf(t, res)
	var kinds []string
	for _, it := range l.Data {
		kinds = append(kinds, it["type"].(string))
		is.Equal(len(it), 3) // type, id, deletedAt
	}
	joined := strings.Join(kinds, ",")
	is.True(strings.Contains(joined, "project"))     // the project
	is.True(strings.Contains(joined, "milestone"))   // and what went with it
	is.True(strings.Contains(joined, "deliverable")) // too
	is.Equal(kinds[len(kinds)-1], "invoice")         // ordered by deletedAt
	is.Equal(l.Data[len(l.Data)-1]["id"], "i01")

	only := listOf(t, a.do("GET", "/v1/deletions?since="+at(since)+"&type=milestone", "a"))
	is.Equal(only.Meta.Total, before.Meta.Total)                                          // one record per milestone
	is.Equal(listOf(t, a.do("GET", "/v1/deletions?since="+at(since), "b")).Meta.Total, 0) // another organization's view

	is.Equal(a.do("GET", "/v1/projects/p1", "a").Code, 404)                          // gone at once
	is.Equal(a.do("GET", "/v1/deliverables/d1/download", "a").Code, 404)             // its links too
	is.Equal(listOf(t, a.do("GET", "/v1/invoices?projectId=p1", "a")).Meta.Total, 0) // invoices stay, without the project

	for _, tc := range []struct{ query, param string }{
		{"", "since"},                            // required
		{"?since=2026-03-01", "since"},           // the contract's format
		{"?since=2016-03-01T09:00:00Z", "since"}, // older than the store knows: resync
		{"?since=" + at(since) + "&type=organization", "type"},
		{"?since=" + at(since) + "&status=open", "status"},
	} {
		res := a.do("GET", "/v1/deletions"+tc.query, "a")
		is.Equal(res.Code, 400)
		is.Equal(errorOf(t, res).Error.Param, tc.param)
	}
}
