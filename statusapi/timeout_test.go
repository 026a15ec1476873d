package statusapi

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/matryer/is"
)

// timeoutKey is a context key of the tests.
type timeoutKey struct{}

// TestRequestTimeoutUnwatched: a request timeout nothing waits on says
// what context.WithTimeout says: its deadline, no error before it,
// DeadlineExceeded after it, the parent's values, and Canceled once
// cancelled, with Done closed.
func TestRequestTimeoutUnwatched(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		parent := context.WithValue(context.Background(), timeoutKey{}, "v")
		ctx, cancel := withRequestTimeout(parent, time.Second)
		defer cancel()
		want, stop := context.WithTimeout(parent, time.Second)
		defer stop()
		d, ok := ctx.Deadline()
		wd, _ := want.Deadline()
		is.True(ok)
		is.Equal(d, wd)
		is.Equal(ctx.Value(timeoutKey{}), "v")
		is.NoErr(ctx.Err())
		time.Sleep(time.Second) // fake time (synctest)
		is.Equal(ctx.Err(), context.DeadlineExceeded)
		is.Equal(context.Cause(ctx), context.DeadlineExceeded)

		ctx, cancel = withRequestTimeout(parent, time.Second)
		cancel()
		is.Equal(ctx.Err(), context.Canceled)
		<-ctx.Done()
		cancel() // twice is fine
		is.Equal(ctx.Err(), context.Canceled)
		child, stop := context.WithCancel(ctx)
		defer stop()
		<-child.Done()
		is.Equal(child.Err(), context.Canceled)
	})
}

// TestRequestTimeoutWatched: once something waits on Done, the deadline
// closes it, and cancel does.
func TestRequestTimeoutWatched(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		ctx, cancel := withRequestTimeout(context.Background(), time.Second)
		defer cancel()
		child, stop := context.WithCancel(ctx)
		defer stop()
		start := time.Now()
		<-child.Done()
		is.Equal(time.Since(start), time.Second)
		is.Equal(ctx.Err(), context.DeadlineExceeded)
		is.Equal(child.Err(), context.DeadlineExceeded)
		is.Equal(context.Cause(child), context.DeadlineExceeded)

		ctx, cancel = withRequestTimeout(context.Background(), time.Second)
		done := ctx.Done()
		cancel()
		<-done
		is.Equal(ctx.Err(), context.Canceled)

		// context.AfterFunc runs on the deadline.
		ctx, cancel = withRequestTimeout(context.Background(), time.Second)
		defer cancel()
		ran := make(chan struct{})
		context.AfterFunc(ctx, func() { close(ran) })
		<-ran
		is.Equal(time.Since(start), 2*time.Second)
	})
}

// TestRequestTimeoutParent: the parent's end and an earlier parent
// deadline show through, watched or not.
func TestRequestTimeoutParent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		parent, cancelParent := context.WithCancelCause(context.Background())
		ctx, cancel := withRequestTimeout(parent, time.Second)
		defer cancel()
		watched, cancelWatched := withRequestTimeout(parent, time.Second)
		defer cancelWatched()
		done := watched.Done()
		gone := errors.New("client gone")
		cancelParent(gone)
		<-done
		is.Equal(ctx.Err(), context.Canceled)
		is.Equal(watched.Err(), context.Canceled)
		is.Equal(context.Cause(ctx), gone)
		is.Equal(context.Cause(watched), gone)

		soon, stop := context.WithTimeout(context.Background(), time.Millisecond)
		defer stop()
		ctx, cancel = withRequestTimeout(soon, time.Second)
		defer cancel()
		d, _ := ctx.Deadline()
		sd, _ := soon.Deadline()
		is.Equal(d, sd)
		<-ctx.Done()
		is.Equal(ctx.Err(), context.DeadlineExceeded)

		// Cancelled after its deadline, unwatched: it ended by the deadline.
		ctx, cancel = withRequestTimeout(context.Background(), time.Second)
		time.Sleep(2 * time.Second) // fake time (synctest)
		cancel()
		is.Equal(ctx.Err(), context.DeadlineExceeded)
	})
}

// TestRequestTimeoutConcurrent: goroutines that ask for Done, Err and
// Value while the request ends all see one context, ended (run with
// -race).
func TestRequestTimeoutConcurrent(t *testing.T) {
	is := is.New(t)
	for range 100 {
		ctx, cancel := withRequestTimeout(context.Background(), time.Minute)
		var wg sync.WaitGroup
		dones := make([]<-chan struct{}, 8)
		for i := range dones {
			wg.Go(func() {
				_ = ctx.Err()
				_ = ctx.Value(timeoutKey{})
				dones[i] = ctx.Done()
			})
		}
		cancel()
		wg.Wait()
		for _, done := range dones {
			<-done
		}
		is.Equal(ctx.Err(), context.Canceled)
	}
}

// TestRequestTimeoutCause: context.Cause says what context.WithTimeout's
// would when the parent is a cancellable context (a request's) and
// nothing asked for Done: DeadlineExceeded past the deadline, Canceled
// once cancelled, the parent's cause once the parent is done, nil before.
func TestRequestTimeoutCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		parent, stop := context.WithCancelCause(context.WithValue(context.Background(), timeoutKey{}, "v"))
		defer stop(nil)
		ctx, cancel := withRequestTimeout(parent, time.Second)
		defer cancel()
		is.NoErr(context.Cause(ctx))
		time.Sleep(time.Second)                                // fake time (synctest)
		is.Equal(context.Cause(ctx), context.DeadlineExceeded) // past the deadline
		is.Equal(ctx.Value(timeoutKey{}), "v")                 // the parent's values still
		cancel()
		is.Equal(context.Cause(ctx), context.DeadlineExceeded) // ended by its deadline

		cancelled, cancel := withRequestTimeout(parent, time.Second)
		cancel()
		is.Equal(context.Cause(cancelled), context.Canceled) // cancelled first
		is.Equal(cancelled.Value(timeoutKey{}), "v")

		gone := errors.New("client gone")
		live, cancel := withRequestTimeout(parent, time.Second)
		defer cancel()
		stop(gone)
		is.Equal(context.Cause(live), gone) // the parent's cause
		cancel()
		is.Equal(context.Cause(live), gone)
		// Ended before the parent: its own cause, as its Err, stays.
		is.Equal(ctx.Err(), context.DeadlineExceeded)
		is.Equal(context.Cause(ctx), context.DeadlineExceeded)
		is.Equal(cancelled.Err(), context.Canceled)
		is.Equal(context.Cause(cancelled), context.Canceled)
	})
}
