package memstore

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// sorted holds items of one kind, unique by id, in list order.
// It holds pointers, which are cheap to move on insert and to scan; an item
// it points to is never changed, only replaced.
type sorted[T any] struct {
	order   func(a, b *T) int // list order; ends with the id, so it is total
	id      func(*T) string
	updated func(*T) *time.Time // the item's UpdatedAt, which put sets
	byID    map[string]*T
	items   []*T
}

func newSorted[T any](order func(a, b *T) int, id func(*T) string, updated func(*T) *time.Time) sorted[T] {
	return sorted[T]{order: order, id: id, updated: updated, byID: make(map[string]*T)}
}

func (s *sorted[T]) has(id string) bool {
	_, ok := s.byID[id]
	return ok
}

// put inserts v at its place in the order, replacing the item with its
// id, and sets v's UpdatedAt to now. When v differs from the item it would
// replace in nothing but UpdatedAt, nothing changes: the stored item keeps
// its UpdatedAt. v must be normalized as the copy functions do (UTC,
// microseconds), so that equal instants compare equal. It returns the
// item replaced (nil for none) and whether anything changed.
func (s *sorted[T]) put(v *T, now time.Time) (old *T, changed bool) {
	id := s.id(v)
	if old, ok := s.byID[id]; ok {
		*s.updated(v) = *s.updated(old)
		if reflect.DeepEqual(old, v) {
			return old, false
		}
		i, _ := slices.BinarySearchFunc(s.items, old, s.order)
		s.items = slices.Delete(s.items, i, i+1)
	}
	*s.updated(v) = now
	i, _ := slices.BinarySearchFunc(s.items, v, s.order)
	s.items = slices.Insert(s.items, i, v)
	old = s.byID[id]
	s.byID[id] = v
	return old, true
}

// remove deletes the item with the id and returns it; nil when there is
// none.
func (s *sorted[T]) remove(id string) *T {
	old, ok := s.byID[id]
	if !ok {
		return nil
	}
	i, _ := slices.BinarySearchFunc(s.items, old, s.order)
	s.items = slices.Delete(s.items, i, i+1)
	delete(s.byID, id)
	return old
}

// removeAll deletes the items match accepts and returns them, in list
// order.
func (s *sorted[T]) removeAll(match func(*T) bool) []*T {
	var gone []*T
	s.items = slices.DeleteFunc(s.items, func(v *T) bool {
		if !match(v) {
			return false
		}
		gone = append(gone, v)
		delete(s.byID, s.id(v))
		return true
	})
	return gone
}

// cascadeOf is the cascade of a deleted project on s (kindTable): it
// removes the items whose project is the deleted one and returns their
// ids, in list order.
func cascadeOf[T any](s *sorted[T], project func(*T) string) func(projectID string) []string {
	return func(projectID string) []string {
		var ids []string
		for _, v := range s.removeAll(func(v *T) bool { return project(v) == projectID }) {
			ids = append(ids, s.id(v))
		}
		return ids
	}
}

// view returns the items a list reads and the filter left to apply to
// them. Without since (zero) they are all the items, in list order, and
// keep is left to apply. With it, they are the items keep accepts (all
// when it is nil) with UpdatedAt at or after since, and following after
// when it is not zero, ordered by UpdatedAt, then id, and nothing is left
// to apply.
func (s *sorted[T]) view(since time.Time, after store.Position, keep func(*T) bool) ([]*T, func(*T) bool) {
	if since.IsZero() {
		return s.items, keep
	}
	var out []*T
	for _, v := range s.items {
		if !s.updated(v).Before(since) && (after.IsZero() || after.Follows(*s.updated(v), "", s.id(v))) && (keep == nil || keep(v)) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b *T) int {
		return cmp.Or(s.updated(a).Compare(*s.updated(b)), strings.Compare(s.id(a), s.id(b)))
	})
	return out, nil
}

// page returns the requested page of the items keep accepts (all when keep
// is nil), copied, and how many it accepts in all, with synced as its
// SyncedThrough and version as its Version (the organization's data
// version, read under the same lock as the items; 0 for a list no data
// version covers).
func page[T any](items []*T, keep func(*T) bool, r store.PageRequest, copyItem func(T) T, synced time.Time, version int64) (store.Page[T], error) {
	if r.Page < 1 || r.Limit < 1 {
		return store.Page[T]{}, fmt.Errorf("store: %w page request (page %d, limit %d)", store.ErrInvalid, r.Page, r.Limit)
	}
	offset := math.MaxInt // a page too far to compute is past the end
	if r.Page-1 <= math.MaxInt/r.Limit {
		offset = r.Offset()
	}
	out := make([]T, 0, min(r.Limit, len(items)))
	if keep == nil {
		if offset < len(items) {
			for _, v := range items[offset : offset+min(r.Limit, len(items)-offset)] {
				out = append(out, copyItem(*v))
			}
		}
		return store.Page[T]{Items: out, Total: len(items), SyncedThrough: synced, Version: version}, nil
	}
	total := 0
	for _, v := range items {
		if !keep(v) {
			continue
		}
		if total >= offset && len(out) < r.Limit {
			out = append(out, copyItem(*v))
		}
		total++
	}
	return store.Page[T]{Items: out, Total: total, SyncedThrough: synced, Version: version}, nil
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	return ptr(*p)
}

func ptr[T any](v T) *T { return &v }

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := kept(*t)
	return &u
}
