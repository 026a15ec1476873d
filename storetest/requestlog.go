package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// RequestLogStore is what the part of the suite of the request log
// (RunRequestLog) tests: a store's request log, and the writer and
// deleter of the organizations it belongs to.
type RequestLogStore interface {
	store.Writer
	store.Deleter
	store.RequestLog
}

// RunRequestLog runs the part of the suite of the request log as
// subtests of t; a store that is also a store.UsageTotals is checked as
// one. Its records are dated from the store's clock (WithClock), as a
// store dates retention from its own. open must return a fresh, empty
// store each time it is called, and arrange its cleanup with t.Cleanup.
func RunRequestLog(t *testing.T, open func(t *testing.T) RequestLogStore, opts ...Option) {
	runPart(t, "RunRequestLog", []suiteCase{{"AppendAndRead", testRequestLog}}, false, func(t *testing.T) subject {
		s := open(t)
		return subject{Writer: s, Deleter: s, RequestLog: s}
	}, opts)
}

// request is a record of org_a's key k1 at, with status.
func request(id string, at time.Time, status int) store.RequestRecord {
	rec := store.RequestRecord{
		ID: id, OrgID: orgA, KeyID: "k1", Method: "GET", Path: "/v1/invoices/inv_1", Route: "/v1/invoices/{id}",
		Query: []string{"expand", "limit"}, Status: status, Duration: 1500 * time.Microsecond, CreatedAt: at,
	}
	if status >= 400 {
		rec.ErrorCode = "NOT_FOUND"
	}
	return rec
}

// testRequestLog appends batches and reads them back: order, paging,
// filters, retention, scoping, the usage per key, validation and the
// deletion of an organization.
func testRequestLog(t *testing.T, open func(t *testing.T) subject) {
	s := open(t)
	is := is.New(t)
	seedData().put(t, s)
	now := s.Now().UTC().Truncate(time.Second)

	is.NoErr(s.AppendRequests(ctx, nil)) // an empty batch writes nothing

	r1 := request("req_1", now.Add(-3*time.Minute), 200)
	r2 := request("req_2", now.Add(-2*time.Minute), 404)
	r2.Query = nil
	r3 := request("req_3", now.Add(-1*time.Minute), 500)
	r3.ErrorCode = "INTERNAL"
	r3.KeyID = "k2"
	dup := request("req_3", now.Add(-1*time.Minute+time.Millisecond), 200) // a client's own id, twice, in the same second
	old := request("req_old", now.Add(-store.RequestLogRetention-time.Hour), 200)
	other := request("req_b", now.Add(-time.Minute), 200)
	other.OrgID = orgB
	ghost := request("req_ghost", now, 200)
	ghost.OrgID = "org_nobody"
	is.NoErr(s.AppendRequests(ctx, []store.RequestRecord{r1, r2, old, other, ghost}))
	is.NoErr(s.AppendRequests(ctx, []store.RequestRecord{r3, dup}))

	logs := func(q store.RequestLogQuery) fetchFunc {
		return func(ctx context.Context, _ store.Store, r store.PageRequest) ([]string, int, error) {
			p, err := s.ListRequestLogs(ctx, orgA, paged(q, r))
			out := []string{}
			for _, rec := range p.Items {
				out = append(out, fmt.Sprintf("%s/%d", rec.ID, rec.Status))
			}
			return out, p.Total, err
		}
	}
	lists := []list{
		// Newest first; the same id and time: the last appended first.
		// Older than the retention, another or an unknown organization:
		// not listed.
		{"every record", logs(store.RequestLogQuery{}), []string{"req_3/200", "req_3/500", "req_2/404", "req_1/200"}},
		{"an exact status", logs(store.RequestLogQuery{Status: 404}), []string{"req_2/404"}},
		{"a class", logs(store.RequestLogQuery{Class: 5}), []string{"req_3/500"}},
		{"another class", logs(store.RequestLogQuery{Class: 4}), []string{"req_2/404"}},
		{"successes", logs(store.RequestLogQuery{Class: 2}), []string{"req_3/200", "req_1/200"}},
		{"one key's own", logs(store.RequestLogQuery{KeyID: "k1"}), []string{"req_3/200", "req_2/404", "req_1/200"}},
		{"filters combined", logs(store.RequestLogQuery{KeyID: "k1", Class: 5}), []string{}},
	}
	checkLists(t, s, lists)
	walk(t, s, lists[:1]...)
	total := func() int {
		t.Helper()
		_, n, err := logs(store.RequestLogQuery{})(ctx, s, all)
		is.NoErr(err) // listing requests
		return n
	}

	// Round trip of every field.
	p, err := s.ListRequestLogs(ctx, orgA, store.RequestLogQuery{PageRequest: store.PageRequest{Page: 1, Limit: 10}, Status: 404})
	is.NoErr(err)
	r2.Query = []string{}
	is.Equal(p.Items[0], r2) // every field as appended, a nil Query as empty
	p, err = s.ListRequestLogs(ctx, orgA, store.RequestLogQuery{PageRequest: store.PageRequest{Page: 1, Limit: 10}, Status: 500})
	is.NoErr(err)
	r3.CreatedAt = r3.CreatedAt.Truncate(time.Second)
	is.Equal(p.Items[0], r3) // to the second, as the wire shows it

	// An invalid record fails its batch, and nothing of it is written.
	bad := request("req_bad", now, 200)
	bad.Path = "/v1/x\x00"
	err = s.AppendRequests(ctx, []store.RequestRecord{request("req_new", now, 200), bad})
	is.True(errors.Is(err, store.ErrInvalid)) // a NUL is refused
	is.Equal(total(), 4)                      // nothing of the refused batch

	// Usage per key: 30 days, today last, errors from 400 on.
	u, err := s.KeyUsage(ctx, orgA, "k1")
	is.NoErr(err)
	is.Equal(u.KeyID, "k1")
	is.Equal(len(u.Days), store.UsageDays) // every day, zero ones too
	is.Equal(u.Days[len(u.Days)-1].Day, store.UsageDay(now))
	is.True(slices.IsSortedFunc(u.Days, func(a, b store.DayUsage) int { return a.Day.Compare(b.Day) })) // oldest first
	var requests, errs int64
	for _, d := range u.Days {
		requests, errs = requests+d.Requests, errs+d.Errors
		is.Equal(d.Day, store.UsageDay(d.Day)) // midnight UTC
	}
	is.Equal(requests, int64(4)) // r1, r2, dup and old (8 days ago: in the usage, not in the log)
	is.Equal(errs, int64(1))     // r2's 404
	for _, d := range u.Days {
		if d.Day.Equal(store.UsageDay(r2.CreatedAt)) {
			is.True(d.Errors >= 1) // the 404 on its day
		}
	}
	is.True(u.LastUsedAt != nil)
	is.Equal(*u.LastUsedAt, dup.CreatedAt.Truncate(time.Minute)) // to the minute

	u2, err := s.KeyUsage(ctx, orgA, "k2")
	is.NoErr(err)
	is.Equal(u2.Days[len(u2.Days)-1].Errors+u2.Days[len(u2.Days)-2].Errors, int64(1)) // r3's 500, today or (just past midnight) yesterday
	none, err := s.KeyUsage(ctx, orgB, "k2")
	is.NoErr(err)
	is.True(none.LastUsedAt == nil) // another organization's key of the same id: nothing
	is.Equal(len(none.Days), store.UsageDays)
	for _, d := range none.Days {
		is.Equal(d.Requests, int64(0))
	}

	// Usage of the organization: every key's, by day, in one read.
	if totals, ok := s.RequestLog.(store.UsageTotals); ok {
		org, err := totals.OrganizationUsage(ctx, orgA)
		is.NoErr(err)
		is.Equal(org.KeyID, "")
		is.Equal(len(org.Days), store.UsageDays)
		for i, d := range org.Days {
			is.Equal(d.Day, u.Days[i].Day)                               // the days of KeyUsage
			is.Equal(d.Requests, u.Days[i].Requests+u2.Days[i].Requests) // the sum of its keys' requests
			is.Equal(d.Errors, u.Days[i].Errors+u2.Days[i].Errors)       // and errors
		}
		is.True(org.LastUsedAt != nil)
		is.Equal(*org.LastUsedAt, r3.CreatedAt.Truncate(time.Minute)) // the latest of its keys
		b, err := totals.OrganizationUsage(ctx, orgB)
		is.NoErr(err)
		var bRequests int64
		for _, d := range b.Days {
			bRequests += d.Requests
		}
		is.Equal(bRequests, int64(1)) // another organization's own only
		nobody, err := totals.OrganizationUsage(ctx, "org_nobody\x00")
		is.NoErr(err)
		is.True(nobody.LastUsedAt == nil && len(nobody.Days) == store.UsageDays) // no usage, every day
	}

	// Retention: pruning keeps what the list shows.
	_, err = s.PruneRequestLogs(ctx)
	is.NoErr(err)
	is.Equal(total(), 4) // pruning keeps what the list shows

	// An organization deleted takes its records with it.
	is.NoErr(s.DeleteOrganization(ctx, orgA))
	is.NoErr(s.PutOrganization(ctx, store.Organization{ID: orgA, Plan: store.PlanStarter}))
	is.Equal(total(), 0) // the records went with the organization
	u, err = s.KeyUsage(ctx, orgA, "k1")
	is.NoErr(err)
	is.True(u.LastUsedAt == nil) // its usage too
}
