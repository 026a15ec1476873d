package statusclient

import (
	"context"
	"errors"
	"net/url"
	"time"
)

// item is what Sync keeps in a map of a Replica, by key.
type item interface {
	key() string
}

func (v Project) key() string     { return v.ID }
func (v Milestone) key() string   { return v.ID }
func (v Deliverable) key() string { return v.ID }
func (v Invoice) key() string     { return v.ID }
func (v Thread) key() string      { return v.ID }
func (v Message) key() string     { return v.ID }

// readList walks the list at path by cursor (Meta.Next), MaxLimit a page,
// from the items stamped at or after from.Since (epoch when zero; param
// is updatedSince, or since for the deletions feed), applies each item,
// and returns the cursor to read from next time: the smallest
// syncedThrough of the pages walked. With stay, a read that found nothing
// keeps from.Since and the answer's ETag, so that the next read is the
// same request and can answer 304.
func readList[T any](ctx context.Context, s *syncer, path, param string, from ListCursor, stay bool, apply func(T)) (ListCursor, error) {
	since, etag := from.Since, from.ETag
	if since.IsZero() {
		since = epoch
	}
	var through time.Time // the smallest syncedThrough of the pages walked
	found := false
	after := "" // the walk by cursor, once the server gave one
	for {
		lo := ListOptions{Page: 1, Limit: MaxLimit}
		if after != "" {
			lo = ListOptions{Limit: MaxLimit, After: after}
		}
		q := lo.query(url.Values{param: {formatTimestamp(since)}})
		items, resp, err := page[T](ctx, s.c, request{path: path, query: q, ifNoneMatch: etag})
		s.saw(resp)
		if errors.Is(err, ErrNotModified) {
			return from, nil
		}
		if err != nil {
			return from, err
		}
		etag = "" // only the first request can be answered 304
		for _, v := range items {
			apply(v)
		}
		found = found || len(items) > 0
		st := resp.Meta.SyncedThrough
		s.synced(st)
		if through.IsZero() || st.Before(through) {
			through = st
		}
		if resp.Meta.Next != "" {
			after = resp.Meta.Next // the items that follow, whatever moved
			continue
		}
		next := ListCursor{Since: through}
		if stay && !found && after == "" && !through.Before(from.Since) {
			next.Since = from.Since
		}
		if stay && after == "" && next.Since.Equal(since) {
			next.ETag = resp.ETag
		}
		return next, nil
	}
}
