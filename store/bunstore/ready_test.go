package bunstore_test

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/testenv"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/store/bunstore"
)

// TestPing checks that Ping answers while the database does, and fails as
// unavailable within the query timeout when it is gone or silent, then
// answers again when it is back.
func TestPing(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		lose func(*testenv.Proxy)
	}{
		{"gone", (*testenv.Proxy).Cut},
		{"silent", (*testenv.Proxy).Blackhole},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			u, err := url.Parse(testenv.PostgresURL(t))
			is.NoErr(err)
			p := testenv.NewProxy(t, u.Host)
			u.Host = p.Addr()
			db, err := bunstore.Open(ctx, u.String())
			is.NoErr(err)
			t.Cleanup(func() { db.Close() })
			const timeout = 300 * time.Millisecond
			st := bunstore.New(db, bunstore.WithQueryTimeout(timeout))
			is.NoErr(st.Ping(ctx)) // the database answers

			tt.lose(p)
			start := time.Now()
			err = st.Ping(ctx)
			is.True(errors.Is(err, store.ErrUnavailable))    // a lost database is unavailable
			is.True(time.Since(start) < timeout+time.Second) // within the query timeout

			p.Restore()
			testenv.Poll(t, 10*time.Second, func() error { return st.Ping(ctx) }) // the pool reconnects: ready again
		})
	}
}

// TestPingCancelled checks that Ping with a cancelled ctx fails as
// unavailable, wrapping ctx's error.
func TestPingCancelled(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	st := bunstore.New(openSchema(t))
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	err := st.Ping(cctx)
	is.True(errors.Is(err, store.ErrUnavailable)) // not ready
	is.True(errors.Is(err, context.Canceled))     // because the caller gave up
}
