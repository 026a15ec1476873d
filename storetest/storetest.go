package storetest

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// Subject is what Run tests: every part's interfaces, the whole write
// side of a store.
type Subject interface {
	Changer
	store.ThreadWriter
	store.RequestLog
	store.WebhookEndpoints
	store.WebhookQueue
}

// Run runs every part of the suite, each as a subtest of t: RunRead,
// RunChanges, RunThreads, RunWebhooks and RunRequestLog. open must return
// a fresh, empty store each time it is called (once per subtest), and
// arrange its cleanup with t.Cleanup; opts must hold a clock the suite can
// move (WithClock).
func Run(t *testing.T, open func(t *testing.T) Subject, opts ...Option) {
	t.Run("Read", func(t *testing.T) { RunRead(t, func(t *testing.T) Reader { return open(t) }, opts...) })
	t.Run("Changes", func(t *testing.T) { RunChanges(t, func(t *testing.T) Changer { return open(t) }, opts...) })
	t.Run("Threads", func(t *testing.T) { RunThreads(t, func(t *testing.T) ThreadStore { return open(t) }, opts...) })
	t.Run("Webhooks", func(t *testing.T) { RunWebhooks(t, func(t *testing.T) WebhookStore { return open(t) }, opts...) })
	t.Run("RequestLog", func(t *testing.T) { RunRequestLog(t, func(t *testing.T) RequestLogStore { return open(t) }, opts...) })
}

// Option configures a part of the suite.
type Option func(*config)

type config struct {
	now     func() time.Time
	advance func(time.Duration)
}

// WithClock gives the suite the clock the store dates its writes from:
// now reads it, and advance moves it on, so that the suite lets time pass
// without sleeping. Without it the suite reads time.Now; advance may be
// nil where the part lets no time pass (RunRead, RunWebhooks,
// RunRequestLog), and RunChanges and RunThreads fail without one.
func WithClock(now func() time.Time, advance func(d time.Duration)) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
		c.advance = advance
	}
}

// subject is what a case reaches a store through: the interfaces of the
// part that runs it (the others nil: a case calls only its part's) and
// the clock of WithClock.
type subject struct {
	store.Store
	store.Writer
	store.Deleter
	store.Organizations
	store.ThreadWriter
	store.RequestLog
	store.WebhookEndpoints
	store.WebhookQueue
	clock *config
}

// Now is the time the store dates its writes from.
func (s subject) Now() time.Time { return s.clock.now() }

// Advance moves the store's clock on by d.
func (s subject) Advance(d time.Duration) { s.clock.advance(d) }

// suiteCase is one case of a part: a name and what it runs.
type suiteCase struct {
	name string
	run  func(t *testing.T, open func(t *testing.T) subject)
}

// runPart runs a part's cases as subtests of t, each on the subject that
// open returns with the clock of opts. A part whose cases let time pass
// (moves) fails without a clock it can move.
func runPart(t *testing.T, part string, cases []suiteCase, moves bool, open func(t *testing.T) subject, opts []Option) {
	c := &config{now: time.Now}
	for _, o := range opts {
		o(c)
	}
	if moves && c.advance == nil {
		t.Fatalf("storetest: %s lets time pass: give it a clock it can move (WithClock with an advance)", part)
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, func(t *testing.T) subject {
				s := open(t)
				s.clock = c
				return s
			})
		})
	}
}

var ctx = context.Background()

// all is the first page with room for every seeded item.
var all = store.PageRequest{Page: 1, Limit: store.MaxLimit}

// find returns the item with the id, failing the test when there is none
// or more than one.
func find[T any](t *testing.T, items []T, id string) T {
	t.Helper()
	var found []T
	for _, v := range items {
		if reflect.ValueOf(v).FieldByName("ID").String() == id {
			found = append(found, v)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d items with id %q in the list, want 1", len(found), id)
	}
	return found[0]
}

// want returns the seeded item of the organization with the id.
func want[T any](items []T, org, id string) T {
	for _, v := range items {
		if rv := reflect.ValueOf(v); rv.FieldByName("OrgID").String() == org && rv.FieldByName("ID").String() == id {
			return v
		}
	}
	panic("storetest: no seeded item " + org + "/" + id)
}

// same checks that got holds want's values, field by field, times compared
// as instants, and that every time in got is in UTC. It leaves UpdatedAt
// out, which a store that tracks changes sets itself: testRoundTrip checks
// it with within.
func same(is *is.I, got, want any) {
	is.Helper()
	d, nonUTC := fields(got)
	is.Equal(d, describe(want))  // every field comes back as it was put
	is.Equal(nonUTC, []string{}) // every time comes back in UTC
}

// describe renders a struct's fields but UpdatedAt, following pointers and
// writing times as UTC instants, so that two items compare equal when
// their values do.
func describe(v any) string {
	d, _ := fields(v)
	return d
}

// fields is describe, and the names of the struct's time fields (set or
// pointed to, UpdatedAt too) whose location is not UTC.
func fields(v any) (string, []string) {
	rv := reflect.ValueOf(v)
	var b strings.Builder
	nonUTC := []string{}
	b.WriteString(rv.Type().Name() + "{")
	for k := range rv.NumField() {
		f, name := rv.Field(k), rv.Type().Field(k).Name
		ref := ""
		if f.Kind() == reflect.Pointer && !f.IsNil() {
			f, ref = f.Elem(), "&"
		}
		tm, isTime := f.Interface().(time.Time)
		if isTime && tm.Location() != time.UTC {
			nonUTC = append(nonUTC, name+" in "+tm.Location().String())
		}
		switch {
		case name == "UpdatedAt":
		case f.Kind() == reflect.Pointer:
			fmt.Fprintf(&b, " %s:nil", name)
		case isTime:
			fmt.Fprintf(&b, " %s:%s%s", name, ref, tm.UTC().Format(time.RFC3339Nano))
		default:
			fmt.Fprintf(&b, " %s:%s%q", name, ref, fmt.Sprint(f.Interface()))
		}
	}
	return b.String() + " }", nonUTC
}
