package memstore

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// the Store's request log and usage per key (RequestLog): each organization
// keeps its records oldest first, at most RequestLogLimit, and they
// go with it when it is deleted.

var (
	_ store.RequestLog  = (*Store)(nil)
	_ store.UsageTotals = (*Store)(nil)
)

// RequestLogLimit is the most records of requests a Store keeps
// per organization, whatever their age: past it, the oldest are dropped.
const RequestLogLimit = 100_000

// requestLogs is a Store's request log. Its lock is taken before the
// the Store's own (mu), never after.
type requestLogs struct {
	mu   sync.Mutex
	seq  int64 // counts the records appended: the last tie-breaker
	orgs map[string]*orgRequests
}

// orgRequests is one organization's records and usage.
type orgRequests struct {
	records []*storedRequest // oldest first (requestOrder)
	usage   map[string]*keyUsage
}

type storedRequest struct {
	store.RequestRecord
	seq int64
}

// keyUsage is one key's counts by day and latest request.
type keyUsage struct {
	days map[time.Time]*store.DayUsage
	last time.Time
}

// requestOrder is the reverse of the list's order: oldest first, then
// by id descending, then as appended.
func requestOrder(a, b *storedRequest) int {
	return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(b.ID, a.ID), cmp.Compare(a.seq, b.seq))
}

// AppendRequests adds records (see RequestLog). The records of an
// organization the Store does not hold are dropped.
func (m *Store) AppendRequests(ctx context.Context, records []store.RequestRecord) error {
	if err := alive(ctx); err != nil {
		return err
	}
	if err := store.ValidateRequests(records); err != nil {
		return fmt.Errorf("store: append requests: %w", err)
	}
	l := &m.requests
	l.mu.Lock()
	defer l.mu.Unlock()
	m.mu.RLock()
	defer m.mu.RUnlock()
	horizon := m.now().Add(-store.RequestLogRetention)
	for _, rec := range records {
		if m.orgs[rec.OrgID] == nil {
			continue
		}
		if l.orgs == nil {
			l.orgs = make(map[string]*orgRequests)
		}
		o := l.orgs[rec.OrgID]
		if o == nil {
			o = &orgRequests{usage: make(map[string]*keyUsage)}
			l.orgs[rec.OrgID] = o
		}
		l.seq++
		s := &storedRequest{RequestRecord: copyRequest(rec), seq: l.seq}
		i, _ := slices.BinarySearchFunc(o.records, s, requestOrder) // near the end: new records are late
		o.records = slices.Insert(o.records, i, s)
		if s.KeyID != "" {
			o.count(s.RequestRecord)
		}
		o.trim(horizon)
	}
	return nil
}

// count adds rec to its key's usage.
func (o *orgRequests) count(rec store.RequestRecord) {
	u := o.usage[rec.KeyID]
	if u == nil {
		u = &keyUsage{days: make(map[time.Time]*store.DayUsage)}
		o.usage[rec.KeyID] = u
	}
	day := store.UsageDay(rec.CreatedAt)
	d := u.days[day]
	if d == nil {
		d = &store.DayUsage{Day: day}
		u.days[day] = d
	}
	d.Requests++
	if rec.IsError() {
		d.Errors++
	}
	if rec.CreatedAt.After(u.last) {
		u.last = rec.CreatedAt
	}
}

// trim drops the records before horizon and those past
// RequestLogLimit, oldest first.
func (o *orgRequests) trim(horizon time.Time) int {
	n := 0
	for n < len(o.records) && (o.records[n].CreatedAt.Before(horizon) || len(o.records)-n > RequestLogLimit) {
		o.records[n] = nil
		n++
	}
	o.records = o.records[n:]
	return n
}

// ListRequestLogs returns a page of the organization's records of the last
// RequestLogRetention, newest first (see RequestLog).
func (m *Store) ListRequestLogs(ctx context.Context, orgID string, q store.RequestLogQuery) (store.Page[store.RequestRecord], error) {
	if err := alive(ctx); err != nil {
		return store.Page[store.RequestRecord]{}, err
	}
	r := q.PageRequest
	if r.Page < 1 || r.Limit < 1 {
		return store.Page[store.RequestRecord]{}, fmt.Errorf("store: %w page request (page %d, limit %d)", store.ErrInvalid, r.Page, r.Limit)
	}
	offset := math.MaxInt // a page too far to compute is past the end
	if r.Page-1 <= math.MaxInt/r.Limit {
		offset = r.Offset()
	}
	horizon := m.now().Add(-store.RequestLogRetention)
	l := &m.requests
	l.mu.Lock()
	defer l.mu.Unlock()
	out := store.Page[store.RequestRecord]{Items: []store.RequestRecord{}}
	o := l.orgs[orgID]
	if o == nil {
		return out, nil
	}
	for i := len(o.records) - 1; i >= 0; i-- {
		rec := &o.records[i].RequestRecord
		if rec.CreatedAt.Before(horizon) {
			break
		}
		if !q.Matches(rec) {
			continue
		}
		if out.Total >= offset && len(out.Items) < r.Limit {
			out.Items = append(out.Items, copyRequest(*rec))
		}
		out.Total++
	}
	return out, nil
}

// KeyUsage returns the usage of one of the organization's keys over the
// last UsageDays days of the Store's clock (see RequestLog).
func (m *Store) KeyUsage(ctx context.Context, orgID, keyID string) (store.Usage, error) {
	return m.usage(ctx, orgID, keyID, func(id string) bool { return id == keyID })
}

// OrganizationUsage returns the sums of the usage of the organization's
// keys over the last UsageDays days of the Store's clock (see
// UsageTotals).
func (m *Store) OrganizationUsage(ctx context.Context, orgID string) (store.Usage, error) {
	return m.usage(ctx, orgID, "", func(string) bool { return true })
}

// usage sums the usage of the organization's keys that keep selects, as
// a Usage of keyID.
func (m *Store) usage(ctx context.Context, orgID, keyID string, keep func(keyID string) bool) (store.Usage, error) {
	if err := alive(ctx); err != nil {
		return store.Usage{}, err
	}
	out := store.Usage{KeyID: keyID, Days: usageDays(m.now())}
	l := &m.requests
	l.mu.Lock()
	defer l.mu.Unlock()
	o := l.orgs[orgID]
	if o == nil {
		return out, nil
	}
	var last time.Time
	for id, u := range o.usage {
		if !keep(id) {
			continue
		}
		for i, d := range out.Days {
			if got := u.days[d.Day]; got != nil {
				out.Days[i].Requests += got.Requests
				out.Days[i].Errors += got.Errors
			}
		}
		if u.last.After(last) {
			last = u.last
		}
	}
	if !last.Before(out.Days[0].Day) {
		last = last.Truncate(time.Minute)
		out.LastUsedAt = &last
	}
	return out, nil
}

// usageDays returns UsageDays days with zero counts, oldest first, the
// day of now last.
func usageDays(now time.Time) []store.DayUsage {
	today := store.UsageDay(now)
	days := make([]store.DayUsage, store.UsageDays)
	for i := range days {
		days[i].Day = today.AddDate(0, 0, i-(store.UsageDays-1))
	}
	return days
}

// PruneRequestLogs deletes the records older than RequestLogRetention and
// the usage of days before the last UsageDays (see RequestLog).
func (m *Store) PruneRequestLogs(ctx context.Context) (int, error) {
	if err := alive(ctx); err != nil {
		return 0, err
	}
	now := m.now()
	horizon, first := now.Add(-store.RequestLogRetention), usageDays(now)[0].Day
	l := &m.requests
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, o := range l.orgs {
		n += o.trim(horizon)
		for key, u := range o.usage {
			for day := range u.days {
				if day.Before(first) {
					delete(u.days, day)
					n++
				}
			}
			if len(u.days) == 0 {
				delete(o.usage, key)
			}
		}
	}
	return n, nil
}

// forgetRequests drops an organization's records and usage: the Store
// calls it when the organization is deleted.
func (m *Store) forgetRequests(orgID string) {
	m.requests.mu.Lock()
	defer m.requests.mu.Unlock()
	delete(m.requests.orgs, orgID)
}

// copyRequest returns rec with a Query of its own, never nil, its time in
// UTC to the second and its duration to the microsecond, as bunstore
// keeps them.
func copyRequest(rec store.RequestRecord) store.RequestRecord {
	rec.Query = append(make([]string, 0, len(rec.Query)), rec.Query...)
	rec.CreatedAt = kept(rec.CreatedAt)
	rec.Duration = rec.Duration.Truncate(time.Microsecond)
	return rec
}
