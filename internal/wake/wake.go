package wake

import (
	"context"
	"sync"
)

// Set is the watchers of every organization. The zero value is ready to
// use; a Set is safe for concurrent use.
type Set struct {
	mu       sync.Mutex
	watchers map[string]map[chan struct{}]struct{}
}

// Watch returns a channel with a buffer of one that receives a value on
// every Wake of orgID (or WakeAll) after it returns, and is closed once
// ctx is done.
func (s *Set) Watch(ctx context.Context, orgID string) <-chan struct{} {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	if s.watchers == nil {
		s.watchers = make(map[string]map[chan struct{}]struct{})
	}
	if s.watchers[orgID] == nil {
		s.watchers[orgID] = make(map[chan struct{}]struct{})
	}
	s.watchers[orgID][ch] = struct{}{}
	s.mu.Unlock()
	context.AfterFunc(ctx, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.watchers[orgID], ch)
		if len(s.watchers[orgID]) == 0 {
			delete(s.watchers, orgID)
		}
		close(ch)
	})
	return ch
}

// Wake sends a value to every watcher of orgID that has none waiting; it
// never blocks.
func (s *Set) Wake(orgID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.watchers[orgID] {
		poke(ch)
	}
}

// WakeAll wakes every watcher of every organization: news may have been
// missed.
func (s *Set) WakeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, chs := range s.watchers {
		for ch := range chs {
			poke(ch)
		}
	}
}

// Watched reports how many watchers orgID has.
func (s *Set) Watched(orgID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.watchers[orgID])
}

func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
