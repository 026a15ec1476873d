package statusclient

import (
	"context"
	"errors"
	"maps"
	"net/url"
	"time"
)

// item is what Sync keeps: an id and the stamp lists are ordered by with
// updatedSince (UpdatedAt). A Deletion is stamped by its DeletedAt.
type item interface {
	stamped
	key() string
}

type stamped interface {
	stamp() time.Time
}

func (v Project) key() string { return v.ID }

func (v Project) stamp() time.Time { return v.UpdatedAt }

// readInto reads the changes of the list at path, of items of type kind,
// from *cur into m (a map of r), and moves *cur on when the read is
// complete.
func readInto[T item](ctx context.Context, s *syncer, r *Replica, kind DeletionType, path string, cur *ListCursor, m map[string]T) error {
	next, err := readList(ctx, s, path, "updatedSince", *cur, true, func(v T) {
		s.back(r, kind, v.key())
		m[v.key()] = v
		s.stats.Upserted++
	})
	if err != nil {
		return err
	}
	*cur = next
	return nil
}

// readList reads the list at path from the cursor from and applies each
// item, MaxLimit a page, and returns the cursor to read from next time:
// the smallest syncedThrough of the pages walked. It asks for the items
// stamped at or after from.Since (param is updatedSince, or since for the
// deletions feed) and follows Meta.Next; from a server without Meta.Next,
// it asks again from each page's newest stamp, and watches the items of a
// group of pages sharing one stamp (Paged) for one that leaves it.
//
// With stay, a read that found nothing keeps from.Since and the answer's
// ETag, so that the next read is the same request and can answer 304.
// Without a cursor it walks the whole list and returns a zero cursor.
func readList[T item](ctx context.Context, s *syncer, path, param string, from ListCursor, stay bool, apply func(T)) (ListCursor, error) {
	since, page, etag := from.Since, 1, from.ETag
	newest := since
	var through time.Time // the smallest syncedThrough of the pages walked
	synced, found := true, false
	l := leavers{before: maps.Clone(from.Paged)}
	again := 1  // the reads again from a group that an item left
	after := "" // the walk by cursor, once the server gave one
	for {
		q := url.Values{}
		setTime(q, param, since)
		lo := ListOptions{Page: page, Limit: MaxLimit}
		if after != "" {
			lo = ListOptions{Limit: MaxLimit, After: after}
		}
		items, resp, err := list[T](ctx, s.c, path, query{lo: lo, params: q, ifNoneMatch: etag})
		s.saw(resp)
		if errors.Is(err, ErrNotModified) {
			return from, nil
		}
		if err != nil {
			return from, err
		}
		etag = ""    // only the first request can be answered 304
		top := since // the newest stamp of the page
		for _, v := range items {
			l.check(v.key(), v.stamp())
			apply(v)
			top = later(top, v.stamp())
			newest = later(newest, v.stamp())
		}
		found = found || len(items) > 0
		if !since.IsZero() {
			st := resp.Meta.SyncedThrough
			s.synced(st)
			switch {
			case st.IsZero():
				synced = false
			case through.IsZero() || st.Before(through):
				through = st
			}
		}
		if !since.IsZero() && resp.Meta.Next != "" {
			after = resp.Meta.Next // the items that follow, whatever moved
			continue
		}
		last := after != "" || resp.NextPage <= page // none, or one that does not move forward
		switch {
		case since.IsZero() && last:
			return ListCursor{}, nil
		case since.IsZero():
			page = resp.NextPage
		case last && !l.left.IsZero() && again > 0:
			// An item of a group walked by page number left it: read
			// again from the group's stamp.
			again--
			since, page, l.left = l.left, 1, time.Time{}
		case last:
			next := ListCursor{Since: newest}
			if synced {
				next.Since = through
			}
			if !l.left.IsZero() && l.left.Before(next.Since) {
				next.Since = l.left
			}
			if stay && !found && page == 1 && after == "" && !next.Since.Before(from.Since) {
				next.Since = from.Since
			}
			if (stay || !synced) && page == 1 && after == "" && next.Since.Equal(since) {
				next.ETag = resp.ETag
			}
			if len(l.paged) > 0 {
				next.Paged = l.paged
			}
			return next, nil
		case top.After(since):
			since, page = top, 1
		default:
			// Every item of the page is stamped since: the next page of
			// the same query, which an item of this page can shift.
			note(&l, items, since)
			page = resp.NextPage
		}
	}
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// leavers watches one readList for the items that leave a group of items
// sharing one stamp that it, or the read before, walked by page number.
type leavers struct {
	before map[string]time.Time // the Paged of the cursor read from
	paged  map[string]time.Time // the items of such pages of this read, by key
	// left is the smallest stamp of a group that an item was seen to
	// leave, zero for none.
	left time.Time
}

// note records, in l, the items of a page that the next page of the same
// query follows, all stamped at.
func note[T item](l *leavers, items []T, at time.Time) {
	if l.paged == nil {
		l.paged = make(map[string]time.Time)
	}
	for _, v := range items {
		l.paged[v.key()] = at
	}
}

// check notes the item key read with stamp at: if a group walked by page
// number held it with another stamp, it left that group.
func (l *leavers) check(key string, at time.Time) {
	for _, m := range []map[string]time.Time{l.before, l.paged} {
		if was, ok := m[key]; ok && !was.Equal(at) {
			delete(m, key) // seen leaving once
			l.leave(was)
		}
	}
}

// leave notes that an item left the group stamped at.
func (l *leavers) leave(at time.Time) {
	if l.left.IsZero() || at.Before(l.left) {
		l.left = at
	}
}
