package statusapi

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// withRequestTimeout is context.WithTimeout(parent, d) for the request
// timeout (WithTimeout), made lazily: the timer, and the registration
// with parent that context.WithTimeout makes at once (which also makes
// the parent's Done channel), are made only when something asks for the
// Done channel, as a store that waits on the network does. A request that
// nothing waits on, such as an answer from the response cache with the
// in-memory store, pays for neither: a timer set and stopped, four
// allocations and three locks a request.
//
// It is the context context.WithTimeout returns, as far as anyone can
// tell: its Deadline is the same; Err says context.DeadlineExceeded once
// the deadline has passed, and the parent's error once the parent is done,
// whether or not Done was asked for, and context.Cause agrees with Err;
// once Done is asked for it is a
// context.WithDeadline, for Done, Err, Value and children alike; cancel
// ends it as context.WithTimeout's cancel does.
func withRequestTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	c := &lazyTimeout{parent: parent, deadline: time.Now().Add(d)}
	if earlier, ok := parent.Deadline(); ok && earlier.Before(c.deadline) {
		c.deadline = earlier
	}
	return c, c.cancel
}

// lazyTimeout is the context of withRequestTimeout.
type lazyTimeout struct {
	parent   context.Context
	deadline time.Time

	mu    sync.Mutex // serializes the making of state
	state atomic.Pointer[timeoutState]
}

// timeoutState is what a lazyTimeout became: the context.WithDeadline
// that Done made, or, when it was cancelled before anyone asked for Done,
// the error it ended with.
type timeoutState struct {
	ctx    context.Context // nil when cancelled first
	cancel context.CancelFunc
	err    error // when ctx is nil
	// ended, when ctx is nil and c ended by itself (not by its parent), is
	// a context without values that ended with err: its canceler is the
	// one context.Cause finds.
	ended context.Context
}

// cancelledFirst is the state of the usual request: answered, and
// cancelled, before anyone waited on its context.
var cancelledFirst = &timeoutState{err: context.Canceled, ended: endedWith(context.Canceled)}

// expiredFirst is the state of a request timeout whose deadline passed
// before anyone waited on it.
var expiredFirst = &timeoutState{err: context.DeadlineExceeded, ended: endedWith(context.DeadlineExceeded)}

// endedWith returns a context without values, done with err
// (context.Canceled or context.DeadlineExceeded) as its error and cause.
func endedWith(err error) context.Context {
	if err == context.DeadlineExceeded {
		ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
		cancel()
		return ctx
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// closedDone is the Done channel of a lazyTimeout cancelled first.
var closedDone = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

// Deadline is the earlier of the parent's deadline and the timeout's.
func (c *lazyTimeout) Deadline() (time.Time, bool) { return c.deadline, true }

// Done makes the context.WithDeadline, the first time, and returns its
// channel; closed when c was cancelled before.
func (c *lazyTimeout) Done() <-chan struct{} {
	s := c.made()
	if s.ctx == nil {
		return closedDone
	}
	return s.ctx.Done()
}

// Err is the error of the context.WithDeadline once made; until then the
// parent's, or context.DeadlineExceeded once the deadline has passed.
func (c *lazyTimeout) Err() error {
	if s := c.state.Load(); s != nil {
		if s.ctx == nil {
			return s.err
		}
		return s.ctx.Err()
	}
	return c.endedBy()
}

// endedBy is Err before anyone asked for Done. A deadline seen passed
// fixes c's state, so that a parent done later changes neither its Err
// nor its cause, as with context.WithTimeout.
func (c *lazyTimeout) endedBy() error {
	if err := c.parent.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.deadline) {
		c.state.CompareAndSwap(nil, expiredFirst)
		return context.DeadlineExceeded
	}
	return nil
}

// Value is the context.WithDeadline's once made (so that the context
// package finds the canceler it registers children with), else the
// parent's. Once c ended by itself (cancelled, or past its deadline)
// before anyone asked for Done, the context package's lookup of the
// nearest canceler (context.Cause) finds one that ended as c did, not
// the parent's: ended holds no values, so every other key is the
// parent's.
func (c *lazyTimeout) Value(key any) any {
	s := c.state.Load()
	if s == nil && !time.Now().Before(c.deadline) {
		_ = c.endedBy() // fixes the state, unless the parent ended first
		s = c.state.Load()
	}
	switch {
	case s == nil:
	case s.ctx != nil:
		return s.ctx.Value(key)
	case s.ended != nil:
		if v := s.ended.Value(key); v != nil {
			return v
		}
	}
	return c.parent.Value(key)
}

// made returns c's state, making the context.WithDeadline the first time.
func (c *lazyTimeout) made() *timeoutState {
	if s := c.state.Load(); s != nil {
		return s
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.state.Load(); s != nil {
		return s
	}
	ctx, cancel := context.WithDeadline(c.parent, c.deadline)
	s := &timeoutState{ctx: ctx, cancel: cancel}
	c.state.Store(s)
	return s
}

// cancel ends c: it cancels the context.WithDeadline when made, and
// otherwise fixes the error c ends with (the parent's, or
// context.DeadlineExceeded once the deadline has passed, or
// context.Canceled) and closes its Done.
func (c *lazyTimeout) cancel() {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch s := c.state.Load(); {
	case s == nil:
		s = cancelledFirst
		if err := c.endedBy(); err != nil {
			s = c.state.Load() // expiredFirst, when the deadline passed
			if s == nil {
				s = &timeoutState{err: err} // the parent's
			}
		}
		c.state.Store(s)
	case s.ctx != nil:
		s.cancel()
	}
}
