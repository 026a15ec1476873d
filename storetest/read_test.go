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
	_, changes := s.(storetest.Changer)
	is.True(!changes) // the outside store is not what RunChanges needs
	_, threads := s.(store.ThreadWriter)
	is.True(!threads) // nor a thread writer

	clock := testenv.NewClock(time.Now())
	storetest.RunRead(t, func(t *testing.T) storetest.Reader {
		m := memstore.New(memstore.WithClock(clock.Now))
		return outside{m, m}
	}, storetest.WithClock(clock.Now, nil))
}

// withLog is an outside store that keeps a request log as well: the read
// part and the request log's, nothing else.
type withLog struct {
	outside
	store.Deleter
	store.RequestLog
}

// TestOutsideStoreOptsIn runs the read part and one opt-in part, the
// request log's, on a store that offers only what those two need.
func TestOutsideStoreOptsIn(t *testing.T) {
	var s any = withLog{}
	_, threads := s.(store.ThreadWriter)
	is.New(t).True(!threads) // the outside store writes no threads
	clock := testenv.NewClock(time.Now())
	open := func(*testing.T) withLog {
		m := memstore.New(memstore.WithClock(clock.Now))
		return withLog{outside{m, m}, m, m}
	}
	storetest.RunRead(t, func(t *testing.T) storetest.Reader { return open(t) }, storetest.WithClock(clock.Now, nil))
	storetest.RunRequestLog(t, func(t *testing.T) storetest.RequestLogStore { return open(t) }, storetest.WithClock(clock.Now, nil))
}
