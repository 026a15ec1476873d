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
// item, MaxLimit a page, and returns the cursor to read from next time.
//
// With a cursor (from.Since not zero) it asks for the items stamped at or
// after from.Since, in the order of their stamps (param is the list's
// parameter: updatedSince, or since for the deletions feed). From a
// server that walks by cursor (Meta.Next), it follows Meta.Next to the
// end of the list, which never skips an item that kept its place, and
// the next cursor is the smallest syncedThrough of the pages walked.
// From one that does not, after each
// page it asks again from the newest stamp of the page, from page 1,
// rather than for the next page: an item that changes during the walk
// moves to the end of the list, and pages of a fixed query would shift
// under it, skipping an item. Only a page whose items all share the stamp
// asked from is followed by the next page of the same query. An item
// whose write a page could not see is stamped at or after that page's
// syncedThrough, so the next cursor is the smallest syncedThrough of the
// pages walked (from a server that sends none, the newest stamp seen).
// When stay is true and the read found nothing (one page, no item), the
// next cursor is from.Since itself, unless a syncedThrough is older:
// asking again from a cursor at or before the syncedThrough misses
// nothing, and the next read is then the same request. The next cursor
// then carries the ETag of the last answer when that answer was the whole
// list and asked from that same cursor: the next read answers 304 when
// nothing changed, and a 304 to the first request (sent with from.ETag)
// leaves the cursor. The deletions feed neither stays nor keeps an ETag
// (but from a server without syncedThrough): its cursor must move with
// the server's clock, to stay within the 30 days of records the server
// keeps, and a 304 tells no new syncedThrough.
//
// The pages of one query, followed by number within a group of more than
// a page of items sharing one stamp, can still shift: when an item of an
// earlier page of the group leaves it (changed, so stamped later; or
// deleted) before the next page is read, the item that moved across the
// page boundary is never read. So readList notes the items of such pages
// (the next cursor's Paged, by key, with the group's stamp) and watches
// for one of them, or one of from.Paged (noted by the read before), to
// come again with another stamp: it then reads again from the smallest
// stamp of the groups they left, once; should that read see one leave
// too, the next cursor is no later than that group's stamp. Sync sees the
// others leave in the deletions feed (see Client.Sync).
//
// Without a cursor it walks the list's pages in the list's own order,
// and the next cursor is zero: a whole read again.
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
