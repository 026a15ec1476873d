package storetest_test

import (
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/storetest"
)

// outside is a store as a portal might write one: the read interface and
// a writer, nothing else (no deletes, threads, request log, webhooks or
// test clock). Its methods are memstore's, reached only through those two
// interfaces.
type outside struct {
	store.Store
	store.Writer
}

// TestRunReadOutsideStore runs the read part on a store that offers only
// a Reader, with the clock given as the suite's option.
func TestRunReadOutsideStore(t *testing.T) {
	is := is.New(t)
	var s any = outside{}
	_, whole := s.(storetest.Subject)
	is.True(!whole) // the outside store is not what Run needs
	_, threads := s.(store.ThreadWriter)
	is.True(!threads) // nor a thread writer

	clock := testenv.NewClock(time.Now())
	storetest.RunRead(t, func(t *testing.T) storetest.Reader {
		m := memstore.New(memstore.WithClock(clock.Now))
		return outside{m, m}
	}, storetest.WithClock(clock.Now))
}
