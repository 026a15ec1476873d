package storetest

import (
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// Reader is what the read part of the suite (RunRead) tests: a store's read
// side and the writer that seeds it, nothing else.
type Reader interface {
	store.Store
	store.Writer
}

// ReadOption configures RunRead.
type ReadOption func(*readConfig)

type readConfig struct {
	now func() time.Time
}

// WithClock sets the clock the store dates its writes from, so that the
// suite can check the times it returns; time.Now if not set.
func WithClock(now func() time.Time) ReadOption {
	return func(c *readConfig) {
		if now != nil {
			c.now = now
		}
	}
}

// RunRead runs the read part of the suite as subtests of t: the cases
// that need no more than a Reader (round trips, copies, order, pages,
// single items, validation, the list of all milestones). Run runs them too.
// open must return a fresh, empty store each time it is called, and
// arrange its cleanup with t.Cleanup.
func RunRead(t *testing.T, open func(t *testing.T) Reader, opts ...ReadOption) {
	c := readConfig{now: time.Now}
	for _, o := range opts {
		o(&c)
	}
	for _, tt := range readCases {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, func(t *testing.T) reader { return clockedReader{open(t), c.now} })
		})
	}
}

// reader is what a case of the read part uses: a Reader and the clock
// its writes are dated from.
type reader interface {
	Reader
	Now() time.Time
}

// clockedReader is a Reader with the clock of WithClock.
type clockedReader struct {
	Reader
	now func() time.Time
}

// Now returns the time of the clock.
func (c clockedReader) Now() time.Time { return c.now() }

// readCase is a case of the read part.
type readCase struct {
	name string
	run  func(t *testing.T, open func(t *testing.T) reader)
}

// readCases are the cases of the read part, in Run's order.
var readCases = []readCase{
	{"RoundTrip", testRoundTrip},
	{"ReturnsCopies", testReturnsCopies},
	{"Replace", testReplace},
	{"Order", testOrder},
	{"FarPages", testFarPages},
	{"SingleItems", testSingleItems},
	{"GetProjects", testGetProjects},
	{"RejectsInvalidItems", testRejectsInvalid},
	{"AllMilestones", testAllMilestones},
}

// read turns a case of the read part into a case of the whole suite.
func read(c readCase) suiteCase {
	return suiteCase{c.name, func(t *testing.T, open func(t *testing.T) Subject) {
		c.run(t, func(t *testing.T) reader { return open(t) })
	}}
}
