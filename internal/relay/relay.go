package relay

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"
)

// The pauses between sessions: MinBackoff after a failure, doubling up to
// MaxBackoff while the channel stays down.
const (
	MinBackoff = 100 * time.Millisecond
	MaxBackoff = 2 * time.Second
)

// ErrGiveUp is wrapped by a session's error that another session would
// get too (a database driver that cannot listen): the Hub logs it as an
// error and opens no other session until every subscriber has stopped.
var ErrGiveUp = errors.New("relay: giving up")

// Session is one session with the channel: it connects and subscribes,
// calls up once it receives (at most once), calls report with each
// organization id that arrives, and returns when the connection fails
// (with the error) or when ctx is done (with anything).
type Session func(ctx context.Context, up func(), report func(orgID string)) error

// Hub is an auth.Invalidations fed by a Session. It is safe for concurrent
// use.
type Hub struct {
	name    string // what the channel is, for the logs
	log     *slog.Logger
	session Session
	all     string // what it reports when a session is up

	mu     sync.Mutex
	subs   map[uint64]func(string)
	next   uint64
	cancel context.CancelFunc // ends the running loop; nil when none runs
	done   chan struct{}      // closed when the running loop has ended
}

// New returns a Hub that runs session while it has subscribers; name
// says what the channel is in the logs ("PostgreSQL LISTEN clientstatus_auth").
// Each time a session is up the Hub reports all to every subscriber
// (auth.AllOrganizations, which the callers pass, so that this package
// imports nothing of the module above it).
func New(name string, log *slog.Logger, session Session, all string) *Hub {
	if log == nil {
		log = slog.Default()
	}
	return &Hub{name: name, log: log, session: session, all: all, subs: make(map[uint64]func(string))}
}

// Subscribe registers fn (see auth.Invalidations), starting the session if
// it is the first subscriber. The stop it returns ends the session, and
// waits for it to end, if fn was the last subscriber.
func (h *Hub) Subscribe(fn func(orgID string)) (stop func()) {
	if fn == nil {
		panic("relay: Subscribe needs a function")
	}
	h.mu.Lock()
	id := h.next
	h.next++
	h.subs[id] = fn
	if h.cancel == nil {
		ctx, cancel := context.WithCancel(context.Background())
		h.cancel, h.done = cancel, make(chan struct{})
		go h.run(ctx, h.done)
	}
	h.mu.Unlock()
	return sync.OnceFunc(func() {
		h.mu.Lock()
		delete(h.subs, id)
		var cancel context.CancelFunc
		var done chan struct{}
		if len(h.subs) == 0 && h.cancel != nil {
			cancel, done = h.cancel, h.done
			h.cancel, h.done = nil, nil
		}
		h.mu.Unlock()
		if cancel != nil {
			cancel()
			<-done
		}
	})
}

// Report calls every subscriber with orgID, at once, on the calling
// goroutine: for a change made in this process, which need not wait for
// the channel to bring it back.
func (h *Hub) Report(orgID string) {
	h.mu.Lock()
	fns := slices.Collect(maps.Values(h.subs))
	h.mu.Unlock()
	for _, fn := range fns {
		fn(orgID)
	}
}

// run opens sessions until ctx is done, pausing between them.
func (h *Hub) run(ctx context.Context, done chan struct{}) {
	defer close(done)
	backoff := MinBackoff
	down := false // an outage has been logged
	for {
		wasUp := false
		err := h.session(ctx, func() {
			wasUp = true
			backoff = MinBackoff
			if down {
				h.log.Info("auth: invalidations are back; caches forget everything they remember, as changes may have been missed", "channel", h.name)
				down = false
			}
			h.Report(h.all)
		}, h.Report)
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, ErrGiveUp) {
			h.log.Error("auth: cannot listen for invalidations; caches see other replicas' changes only within their ttl", "channel", h.name, "err", err)
			<-ctx.Done()
			return
		}
		if !down {
			msg := "auth: invalidations are down; caches see other replicas' changes only within their ttl until they are back"
			if !wasUp {
				msg = "auth: cannot listen for invalidations yet; caches see other replicas' changes only within their ttl until it can"
			}
			h.log.Warn(msg, "channel", h.name, "err", err)
			down = true
		}
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return
		}
		backoff = min(2*backoff, MaxBackoff)
	}
}
