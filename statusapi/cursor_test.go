package statusapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// walkPage is a page of a list of changes as a client reads it.
type walkPage struct {
	Data []struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	} `json:"data"`
	Meta struct {
		Page  int     `json:"page"`
		Total int     `json:"total"`
		Next  *string `json:"next"`
	} `json:"meta"`
}

// walk follows meta.next from target with key, checking that the Link
// header's rel="next" carries the same after, and returns the ids seen, in
// order; between pages it calls between, if not nil, with the page number.
func walk(t *testing.T, a *testAPI, target, key string, between func(int)) []string {
	t.Helper()
	is := is.New(t)
	var ids []string
	next := target
	for n := 1; ; n++ {
		res := a.do("GET", next, key)
		is.Equal(res.Code, 200) // a page of the walk
		var p walkPage
		is.NoErr(json.Unmarshal(res.Body.Bytes(), &p))
		is.Equal(p.Meta.Page, 1) // a walk by after is always page 1
		for _, it := range p.Data {
			ids = append(ids, it.Type+it.ID)
		}
		link := res.Header().Get("Link")
		is.True(!strings.Contains(link, "page=")) // a list of changes links by after, not by page
		if p.Meta.Next == nil {
			is.True(!strings.Contains(link, `rel="next"`)) // no next link at the end
			return ids
		}
		is.True(strings.Contains(link, "after="+url.QueryEscape(*p.Meta.Next)) && strings.Contains(link, `rel="next"`)) // the link carries meta.next
		is.True(p.Meta.Total > len(p.Data))                                                                             // items follow
		if between != nil {
			between(n)
		}
		base, _, _ := strings.Cut(target, "?after=")
		next = base + "&after=" + url.QueryEscape(*p.Meta.Next)
	}
}

// TestWalkByCursor walks every list of changes and the deletions by
// after, with limits 1 to 3: each item once, in the order of the list
// asked in one page.
func TestWalkByCursor(t *testing.T) {
	is := is.New(t)
	a := newTestAPIWith(t, unlimited)
	ctx := context.Background()
	is.NoErr(a.store.DeleteDeliverable(ctx, "org_a", "d2"))
	is.NoErr(a.store.DeleteInvoice(ctx, "org_a", "i01"))
	targets := []string{"/v1/deletions?since=" + at(t0), "/v1/milestones?updatedSince=" + at(t0)}
	for _, rt := range table {
		if rt.UpdatedSince {
			targets = append(targets, rt.Example+"?updatedSince="+at(t0))
		}
	}
	for _, target := range targets {
		whole := walk(t, a, target+"&limit=100", "a", nil)
		is.True(len(whole) > 1) // something to walk: target
		for limit := 1; limit <= 3; limit++ {
			is.Equal(walk(t, a, fmt.Sprintf("%s&limit=%d", target, limit), "a", nil), whole) // the same items, once each
		}
	}
}

// TestWalkByCursorWhileItemsMove updates, adds and deletes projects
// between the pages of a walk by after with limit 1: every project that
// kept its place and matched throughout is seen.
func TestWalkByCursorWhileItemsMove(t *testing.T) {
	is := is.New(t)
	a := newTestAPIWith(t, unlimited)
	ctx := context.Background()
	seen := walk(t, a, "/v1/projects?updatedSince="+at(t0)+"&limit=1", "a", func(n int) {
		a.clock.Advance(time.Second)
		switch n {
		case 1: // the first one not yet walked moves to the end: walked later
			p, err := a.store.GetProject(ctx, "org_a", "p2")
			is.NoErr(err)
			p.Name += ", renamed"
			is.NoErr(a.store.PutProject(ctx, p))
		case 2:
			is.NoErr(a.store.PutProject(ctx, store.Project{ID: "p9", OrgID: "org_a", Name: "New", Status: store.ProjectPlanned}))
		case 3:
			is.NoErr(a.store.DeleteProject(ctx, "org_a", "p3"))
		}
	})
	for _, id := range []string{"p1", "p2", "p4", "p5", "p9"} {
		is.True(strings.Contains(strings.Join(seen, ","), id)) // never skipped: id
	}
}

// TestCursorRefused: after with page, after without updatedSince, a
// malformed cursor, and one from another route, filter or key are 400
// INVALID_PARAMETER naming after.
func TestCursorRefused(t *testing.T) {
	is := is.New(t)
	a := newTestAPIWith(t, unlimited)
	target := "/v1/projects?updatedSince=" + at(t0) + "&limit=1"
	var p walkPage
	is.NoErr(json.Unmarshal(a.do("GET", target, "a").Body.Bytes(), &p))
	is.True(p.Meta.Next != nil)
	after := url.QueryEscape(*p.Meta.Next)
	is.Equal(a.do("GET", target+"&after="+after, "a").Code, 200)                                      // the cursor where it was given
	is.Equal(a.do("GET", target+"&after="+after+"&limit=2", "a").Code, 400)                           // limit given twice: refused as ever
	is.Equal(a.do("GET", "/v1/projects?updatedSince="+at(t0)+"&limit=5&after="+after, "a").Code, 200) // another limit is no other filter
	for _, bad := range []struct{ target, key string }{
		{target + "&after=" + after + "&page=2", "a"},                                     // with page
		{"/v1/projects?after=" + after, "a"},                                              // without updatedSince
		{target + "&after=xyz", "a"},                                                      // malformed
		{target + "&after=" + after[:len(after)-2], "a"},                                  // truncated
		{"/v1/invoices?updatedSince=" + at(t0) + "&after=" + after, "a"},                  // another route
		{"/v1/projects?updatedSince=" + at(t0.Add(time.Second)) + "&after=" + after, "a"}, // another updatedSince
		{"/v1/projects?updatedSince=" + at(t0) + "&status=planned&after=" + after, "a"},   // another filter
		{target + "&after=" + after, "p1 only"},                                           // another key
		{"/v1/deletions?since=" + at(t0) + "&after=" + after, "a"},                        // the deletions
		{"/v1/deletions?since=" + at(t0) + "&page=1&after=" + after, "a"},                 // with page
	} {
		res := a.do("GET", bad.target, bad.key)
		is.Equal(res.Code, 400) // bad.target
		e := errorOf(t, res).Error
		is.Equal(e.Code, "INVALID_PARAMETER")
		is.Equal(e.Param, "after") // names after: bad.target
	}
}

// TestAllMilestones lists every project's milestones in one list: ordered
// by dueAt, then projectId, then id, filtered by projectId and status,
// and a key restricted to projects sees its own only.
func TestAllMilestones(t *testing.T) {
	is := is.New(t)
	a := newTestAPIWith(t, unlimited)
	ctx := context.Background()
	day := func(d int) time.Time { return t0.AddDate(0, 0, d) }
	for _, m := range []store.Milestone{
		{ID: "m0", ProjectID: "p2", Name: "Same day as Design", Status: store.MilestonePending, DueAt: day(-20)},
		{ID: "m9", ProjectID: "p2", Name: "Later", Status: store.MilestoneInProgress, DueAt: day(40)},
	} {
		m.OrgID = "org_a"
		is.NoErr(a.store.PutMilestone(ctx, m))
	}
	ids := func(target, key string) []string {
		res := a.do("GET", target, key)
		is.Equal(res.Code, 200) // target
		var p walkPage
		is.NoErr(json.Unmarshal(res.Body.Bytes(), &p))
		var out []string
		for _, it := range p.Data {
			out = append(out, it.ID)
		}
		return out
	}
	is.Equal(ids("/v1/milestones", "a"), []string{"m2", "m1", "m0", "m3", "m9"})                              // dueAt, then projectId (p1 before p2), then id
	is.Equal(ids("/v1/milestones?projectId=p2", "a"), []string{"m0", "m9"})                                   // one project's
	is.Equal(ids("/v1/milestones?projectId=nope", "a"), []string(nil))                                        // an unknown project: empty
	is.Equal(ids("/v1/milestones?status=completed", "a"), []string{"m2", "m1"})                               // by status
	is.Equal(ids("/v1/milestones", "p2 only"), []string{"m0", "m9"})                                          // a restricted key's own
	is.Equal(ids("/v1/milestones?projectId=p1", "p2 only"), []string(nil))                                    // and nothing of another project
	is.Equal(a.do("GET", "/v1/milestones", "invoices:read").Code, 403)                                        // needs projects:read
	is.Equal(ids("/v1/milestones?limit=2&page=2", "a"), []string{"m0", "m3"})                                 // paged
	is.True(strings.Contains(a.do("GET", "/v1/milestones?expand=project", "a").Body.String(), `"project":{`)) // expands
}
