package statusapi

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// The live streams of a handler share their reading of the store: each
// organization with open streams has one feed, which reads the
// organization's events once per wake-up of the store and queues to each
// of its streams what that stream's view may see (its key's scopes and
// projects, its types). An idle stream reads nothing: the store's
// wake-ups, and every streamSafety one read of the feed read longest
// ago, are all the reading. Keys are checked again only when the
// resolver reports their organization (auth.KeyResolver's Subscribe),
// once per distinct credential, and at their expiry.
//
// A stream reads its backlog itself, then joins its organization's feed
// at the last event it sent. The feed admits joiners between its reads:
// one whose last event is the feed's cursor follows from there; another
// is brought up to date by a read of its own view (the seam), and the
// feed's next read skips what that seam sent (the events up to the last
// one it sent, when they are in that read). That is exact because the
// feed order never changes once an event is visible and each read sees a
// prefix of it that only grows: the seam saw everything the feed had
// read, and the feed's next read sees everything the seam sent.

// streamSafety is how often a handler with open streams reads the feed
// of the organization read longest ago, although the store did not wake
// it: a wake-up the store missed costs one read, whatever the number of
// streams and organizations.
const streamSafety = 10 * time.Second

// streamRetry is how soon a feed reads again after a wake-up that brought
// nothing: the store may wake it before the events are visible. It
// doubles at each read that brings nothing, up to StreamPoll/2, so that
// such an event arrives about as soon as it is visible.
const streamRetry = 20 * time.Millisecond

// fanout is a handler's feeds and what its open streams' keys are checked
// on.
type fanout struct {
	h *handler

	hold    sync.Mutex // serializes starting and stopping what follows
	holders int        // streams that watch (open ones)
	stop    func()     // ends the resolver subscription and the safety loop

	mu       sync.Mutex
	feeds    map[string]*feed                // by the organization read
	byKey    map[string]map[*stream]struct{} // the open streams, by keyOrg
	dirty    map[string]bool                 // organizations reported and not checked yet
	checking bool                            // a recheck runs
}

func newFanout(h *handler) *fanout {
	return &fanout{h: h, feeds: make(map[string]*feed), byKey: make(map[string]map[*stream]struct{}),
		dirty: make(map[string]bool)}
}

// watch registers s for its key's reports; the first stream subscribes
// to the resolver and starts the safety reads.
func (f *fanout) watch(s *stream) {
	f.hold.Lock()
	if f.holders++; f.holders == 1 {
		unsubscribe := f.h.keys.Subscribe(f.reported)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go f.safety(ctx, done)
		f.stop = func() {
			unsubscribe()
			cancel()
			<-done
		}
	}
	f.hold.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	set := f.byKey[s.keyOrg]
	if set == nil {
		set = make(map[*stream]struct{})
		f.byKey[s.keyOrg] = set
	}
	set[s] = struct{}{}
}

// join makes s follow its organization's feed, starting one if none
// runs; the feed admits it between two of its reads.
func (f *fanout) join(s *stream) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fd := f.feeds[s.c.Org.ID]
	if fd == nil {
		ctx, cancel := context.WithCancel(context.Background())
		fd = &feed{f: f, org: s.c.Org.ID, cancel: cancel, poke: make(chan struct{}, 1),
			members: make(map[*stream]bool), pending: make(map[*stream]string)}
		f.feeds[fd.org] = fd
		go fd.run(ctx)
	}
	s.feed = fd
	fd.mu.Lock()
	fd.members[s] = false
	fd.joining = append(fd.joining, s)
	fd.mu.Unlock()
	fd.wake()
}

// leave forgets s; the last stream of a feed ends it, and the last
// stream of all ends the subscription and the safety reads.
func (f *fanout) leave(s *stream) {
	f.mu.Lock()
	if set := f.byKey[s.keyOrg]; set != nil {
		delete(set, s)
		if len(set) == 0 {
			delete(f.byKey, s.keyOrg)
		}
	}
	if fd := s.feed; fd != nil {
		fd.mu.Lock()
		delete(fd.members, s)
		empty := len(fd.members) == 0
		fd.mu.Unlock()
		if empty && f.feeds[fd.org] == fd {
			delete(f.feeds, fd.org)
			fd.cancel()
		}
	}
	f.mu.Unlock()
	f.hold.Lock()
	defer f.hold.Unlock()
	if f.holders--; f.holders == 0 {
		f.stop()
		f.stop = nil
	}
}

// reported is the resolver's report that orgID's keys or account changed
// (auth.AllOrganizations: any): the streams of its keys are checked
// again, on another goroutine.
func (f *fanout) reported(orgID string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dirty[orgID] = true
	if !f.checking {
		f.checking = true
		go f.recheck()
	}
}

// recheck resolves again, once per distinct credential, the keys of the
// streams of the organizations reported, and ends each stream whose key
// no longer resolves to a principal that reads the same organization and
// may use the API, until no report is left.
func (f *fanout) recheck() {
	for {
		f.mu.Lock()
		if len(f.dirty) == 0 {
			f.checking = false
			f.mu.Unlock()
			return
		}
		byCred := make(map[string][]*stream)
		add := func(set map[*stream]struct{}) {
			for s := range set {
				byCred[s.cred] = append(byCred[s.cred], s)
			}
		}
		if f.dirty[auth.AllOrganizations] {
			for _, set := range f.byKey {
				add(set)
			}
		} else {
			for org := range f.dirty {
				add(f.byKey[org])
			}
		}
		clear(f.dirty)
		f.mu.Unlock()
		for _, streams := range byCred {
			if !streams[0].allowed(context.Background()) {
				for _, s := range streams {
					s.end()
				}
			}
		}
	}
}

// safety asks, every streamSafety until ctx is done, the feed read
// longest ago to read.
func (f *fanout) safety(ctx context.Context, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(streamSafety)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		f.mu.Lock()
		var oldest *feed
		for _, fd := range f.feeds {
			if oldest == nil || fd.lastRead.Load() < oldest.lastRead.Load() {
				oldest = fd
			}
		}
		f.mu.Unlock()
		if oldest != nil {
			oldest.mu.Lock()
			oldest.safety = true
			oldest.mu.Unlock()
			oldest.wake()
		}
	}
}

// feed is the reading of one organization's events for its streams.
type feed struct {
	f        *fanout
	org      string
	cancel   context.CancelFunc
	poke     chan struct{} // a value when joiners wait or a safety read is asked
	lastRead atomic.Int64  // when its last read started, in Unix nanoseconds

	mu      sync.Mutex
	members map[*stream]bool // its streams: true once admitted
	joining []*stream        // not admitted yet
	safety  bool             // a safety read is asked

	// The feed's goroutine's own.
	cursor  string             // the last event read
	started bool               // cursor is set
	pending map[*stream]string // seamed streams: the last event the seam sent
	batch   []store.Event
	out     []*stream
	frames  [][]byte
	mine    [][]byte
}

func (fd *feed) wake() {
	select {
	case fd.poke <- struct{}{}:
	default:
	}
}

// run reads the organization's feed as the store wakes it, as streams
// join and as the safety loop asks, until ctx is done.
func (fd *feed) run(ctx context.Context) {
	h := fd.f.h
	wake := h.events.WatchEvents(ctx, fd.org) // before the cursor is read: no event falls between
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	var backoff time.Duration // of retry after a wake-up; 0 when it is stopped
	failing := false          // a failure has been logged
	for {
		if !fd.started {
			if err := fd.start(ctx); err != nil {
				if ctx.Err() != nil {
					return
				}
				failing = fd.failed(failing, err)
				retry.Reset(StreamPoll)
				backoff = 0
			}
		}
		if fd.started {
			fd.admit(ctx)
		}
		var afterWake, read bool
		select {
		case <-ctx.Done():
			return
		case _, open := <-wake:
			if !open {
				return
			}
			backoff, afterWake, read = 0, true, true
		case <-retry.C:
			afterWake, read = backoff > 0, true
		case <-fd.poke:
			fd.mu.Lock()
			read, fd.safety = fd.safety, false
			fd.mu.Unlock()
		}
		if !read || !fd.started {
			continue
		}
		n, err := fd.read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			failing = fd.failed(failing, err)
			backoff = 0
			retry.Reset(StreamPoll)
			continue
		}
		failing = false
		switch {
		case n > 0:
			backoff = 0
			retry.Stop()
		case afterWake && backoff < StreamPoll/2:
			backoff = max(streamRetry, 2*backoff)
			retry.Reset(backoff)
		}
	}
}

// failed logs err, the first of a streak, and reports a streak.
func (fd *feed) failed(failing bool, err error) bool {
	if !failing {
		fd.f.h.cfg.logger.Warn("statusapi: reading events for live streams failed: they wait, and read again in a second", "org", fd.org, "err", err.Error())
	}
	return true
}

// start reads the cursor the feed follows from: the newest event.
func (fd *feed) start(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, fd.f.h.cfg.timeout)
	defer cancel()
	fd.lastRead.Store(time.Now().UnixNano())
	cursor, err := fd.f.h.events.LatestEvent(ctx, fd.org)
	if err != nil {
		return err
	}
	fd.cursor, fd.started = cursor, true
	return nil
}

// admit makes the joiners members, bringing those not at the cursor up
// to date with a read of their own view (the seam).
func (fd *feed) admit(ctx context.Context) {
	fd.mu.Lock()
	joining := fd.joining
	fd.joining = nil
	fd.mu.Unlock()
	for _, s := range joining {
		if s.q.After != fd.cursor {
			last, err := fd.seam(ctx, s)
			if err != nil {
				s.end()
				continue
			}
			fd.pending[s] = last
		}
		fd.mu.Lock()
		if _, ok := fd.members[s]; ok {
			fd.members[s] = true
		}
		fd.mu.Unlock()
	}
}

// seam queues to s its events after the last one it sent, up to the
// newest, and returns the id of the last one.
func (fd *feed) seam(ctx context.Context, s *stream) (string, error) {
	q := s.q
	for {
		rctx, cancel := context.WithTimeout(ctx, fd.f.h.cfg.timeout)
		pg, err := fd.f.h.events.ListEvents(rctx, fd.org, q)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				s.h.log(s.r, s.w, slog.LevelWarn, "statusapi: reading events for a live stream failed: the stream ends", "org", fd.org, "err", err.Error())
			}
			return "", err
		}
		fd.mine = fd.mine[:0]
		for _, e := range pg.Events {
			b, err := appendFrame(nil, e)
			if err != nil {
				return "", err
			}
			fd.mine = append(fd.mine, b)
		}
		s.push(fd.mine...)
		q.After = pg.Last
		if len(pg.Events) < streamPage {
			return q.After, nil
		}
	}
}

// read reads every event after the cursor and queues each to the
// members that may see it. It returns how many it read.
func (fd *feed) read(ctx context.Context) (int, error) {
	h := fd.f.h
	fd.lastRead.Store(time.Now().UnixNano())
	fd.batch = fd.batch[:0]
	after := fd.cursor
	for {
		rctx, cancel := context.WithTimeout(ctx, h.cfg.timeout)
		pg, err := h.events.ListEvents(rctx, fd.org, store.EventQuery{After: after, Limit: streamPage})
		cancel()
		if errors.Is(err, store.ErrUnknownCursor) {
			// The cursor is no longer kept: its streams end, and resume
			// (or resync) from where each stopped.
			fd.endAll()
			fd.started = false
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		fd.batch = append(fd.batch, pg.Events...)
		after = pg.Last
		if len(pg.Events) < streamPage {
			break
		}
	}
	fd.cursor = after
	fd.deliver()
	n := len(fd.batch)
	if cap(fd.batch) > 4*streamPage {
		fd.batch = nil // a burst's buffer is not kept
	}
	return n, nil
}

// deliver queues the batch to the members, each what it may see, after
// what its seam sent.
func (fd *feed) deliver() {
	if len(fd.batch) == 0 && len(fd.pending) == 0 {
		return
	}
	fd.frames = fd.frames[:0]
	for _, e := range fd.batch {
		b, err := appendFrame(nil, e)
		if err != nil {
			b = nil // never: an event of the store encodes
		}
		fd.frames = append(fd.frames, b)
	}
	fd.mu.Lock()
	fd.out = fd.out[:0]
	for s, admitted := range fd.members {
		if admitted {
			fd.out = append(fd.out, s)
		}
	}
	fd.mu.Unlock()
	for _, s := range fd.out {
		from := 0
		if last, ok := fd.pending[s]; ok {
			if i := slices.IndexFunc(fd.batch, func(e store.Event) bool { return e.ID == last }); i >= 0 {
				from = i + 1
			}
		}
		fd.mine = fd.mine[:0]
		for i := from; i < len(fd.batch); i++ {
			if s.sees(fd.batch[i]) && fd.frames[i] != nil {
				fd.mine = append(fd.mine, fd.frames[i])
			}
		}
		s.push(fd.mine...)
	}
	clear(fd.pending)
	clear(fd.out)
	clear(fd.frames)
	clear(fd.mine)
}

// endAll ends the feed's streams.
func (fd *feed) endAll() {
	fd.mu.Lock()
	streams := slices.Collect(maps.Keys(fd.members))
	fd.mu.Unlock()
	for _, s := range streams {
		s.end()
	}
}

// sees reports whether e is in the stream's view: its types, and its
// key's kinds and projects (as store.EventQuery filters them).
func (s *stream) sees(e store.Event) bool {
	q := &s.q
	return (len(q.Types) == 0 || slices.Contains(q.Types, e.Type)) &&
		(q.OnlyKinds == nil || slices.Contains(q.OnlyKinds, e.Kind)) &&
		(q.OnlyProjects == nil || e.ProjectID != "" && slices.Contains(q.OnlyProjects, e.ProjectID))
}
