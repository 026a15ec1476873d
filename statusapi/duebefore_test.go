package statusapi_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
)

// TestDueBefore lists the items due before a time, on every route that
// takes dueBefore: exclusive, a null dueAt never matching, combined with
// status, projectId, paging and a walk by after; meta.total counts the
// matches.
func TestDueBefore(t *testing.T) {
	api := newTestAPIWith(t, unlimited)
	day := func(d int) string { return at(t0.AddDate(0, 0, d)) }
	for _, tc := range []struct {
		target string
		total  int
		ids    []string
	}{
		{"/v1/projects?dueBefore=" + day(60), 1, []string{"p4"}}, // p2 is due then: exclusive; p1, p3, p5 have no dueAt
		{"/v1/projects?dueBefore=" + at(t0.AddDate(0, 0, 60).Add(time.Second)), 2, []string{"p2", "p4"}},
		{"/v1/projects?status=planned&dueBefore=" + day(365), 1, []string{"p2"}},
		{"/v1/projects/p1/milestones?dueBefore=" + day(-20), 1, []string{"m2"}},
		{"/v1/projects/p1/milestones?dueBefore=" + day(0), 2, []string{"m2", "m1"}},
		{"/v1/projects/p1/milestones?status=pending&dueBefore=" + day(0), 0, []string{}},
		{"/v1/milestones?dueBefore=" + day(0) + "&limit=1&page=2", 2, []string{"m1"}},
		{"/v1/milestones?projectId=p1&status=completed&dueBefore=" + day(-20), 1, []string{"m2"}},
		{"/v1/invoices?dueBefore=" + day(10), 9, invoiceIDs(9, 1)},
		{"/v1/invoices?status=open&dueBefore=" + day(10), 3, []string{"i09", "i05", "i01"}}, // the overdue ones
		{"/v1/invoices?projectId=p1&dueBefore=" + day(10) + "&limit=3&page=3", 8, []string{"i02", "i01"}},
		{"/v1/invoices?dueBefore=" + day(1), 0, []string{}},
	} {
		t.Run(tc.target, func(t *testing.T) {
			is := is.New(t)
			l := listOf(t, api.do("GET", tc.target, "a"))
			is.Equal(l.Meta.Total, tc.total) // meta.total counts the matches
			is.Equal(l.ids(), tc.ids)
		})
	}
	// With updatedSince, walked by after: the same items, once each.
	for _, tc := range []struct {
		target string
		n      int
	}{
		{"/v1/invoices?updatedSince=" + day(-400) + "&dueBefore=" + day(10), 9},
		{"/v1/projects?updatedSince=" + day(-400) + "&dueBefore=" + day(61), 2},
	} {
		t.Run(tc.target, func(t *testing.T) {
			is := is.New(t)
			whole := walk(t, api, tc.target+"&limit=100", "a", nil)
			is.Equal(len(whole), tc.n)
			is.Equal(walk(t, api, tc.target+"&limit=2", "a", nil), whole)
		})
	}
	// A cursor is bound to its dueBefore.
	target := "/v1/invoices?updatedSince=" + day(-400) + "&limit=1&dueBefore="
	var p walkPage
	is := is.New(t)
	is.NoErr(json.Unmarshal(api.do("GET", target+day(10), "a").Body.Bytes(), &p))
	is.True(p.Meta.Next != nil)
	after := "&after=" + url.QueryEscape(*p.Meta.Next)
	is.Equal(api.do("GET", target+day(10)+after, "a").Code, 200) // where it was given
	for _, bad := range []string{target + day(11) + after, strings.TrimSuffix(target, "&dueBefore=") + after} {
		e := errorOf(t, api.do("GET", bad, "a")).Error
		is.Equal(e.Param, "after") // another dueBefore, or none: bad
	}
}
