package statusapi

import (
	"container/list"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/clientstatus/clientstatus/auth"
)

// DefaultResponseCacheBytes is the size of the response cache unless
// WithResponseCache says otherwise: 32 MiB of encoded bodies and their
// keys, about 6,000 pages of 20 invoices.
const DefaultResponseCacheBytes = 32 << 20

// The response cache keeps the encoded answers of the routes that read the
// store (lists and items, not download links nor the deletion feed),
// keyed by the organization's data version (store.Versions): a request
// for a page that has not changed since it was last served is answered
// with the same bytes and ETag, without a store query or any encoding,
// and its revalidation (304) costs one version read. A write moves the
// version, so every replica reading the same store serves it on its next
// request: there is no time during which a cached answer is stale.
//
// A page of changes (a list asked with updatedSince) carries
// meta.syncedThrough, a time that the store computed with the data of that
// page: every write the page could not see has, or will get, an updatedAt
// at or after it. Serving the same bytes later keeps that true, whenever
// it is served: the writes a page cannot see are fixed by its data, not by
// the time it is read, so a syncedThrough that was right for those data
// stays right for them; it only grows older than the store's own, which
// costs a client a few items fetched twice, never a missed one. What the
// cache must not do is pair a syncedThrough with data other than those it
// was computed with, and it cannot: the bytes are encoded once, from one
// store.Page holding both, and kept whole. Nor does it keep an answer
// under a version newer than its data (see fromCache), so a write that
// commits after the page was read moves the version and is served on the
// next request, with a syncedThrough of its own. A 304 stays as cheap as
// before: one version read and the cached ETag, which covers syncedThrough
// with the rest of the body; the client then keeps the syncedThrough of
// the body it has, which is right for the same reason.
//
// An entry is keyed by everything the bytes depend on but the version,
// which it holds (one answer per key, the latest kept): the organization,
// the public URL, the path and the raw query (the
// Link header is built from them), and the projects a restricted key may
// see. Scopes are not in the key: they are checked before the cache is
// read, and the same bytes answer every key allowed the route; but for
// whether the key may read projects, which expand=project depends on.

// cacheKey names one cached answer, whatever the version it was kept at.
type cacheKey struct {
	org   string
	base  string // the public URL, when it varies by request (else "")
	path  string // escaped
	query string // raw
	only  string // the caller's project restriction, encoded (onlyKey)
	// projects says whether the caller may read projects: expand=project
	// embeds them only then (expand.go), the one answer a scope changes.
	projects bool
	// key is the caller's key on a list of changes, whose meta.next is
	// bound to it (cursor.go); "" on every other route.
	key string
}

// responseCache is a least-recently-used cache of encoded answers, one
// per key with the data version it was kept at, bounded by the bytes it
// holds (bodies, links, keys and a fixed overhead per entry). It is safe
// for concurrent use.
//
// An answer pushed out for room, or too large to keep, leaves its tag
// behind: a tag entry, a few hundred bytes in a second LRU list bounded
// by an eighth of the cache (for the default, some 13,000 tags). A polling client mostly revalidates (its
// If-None-Match names the tag it has), and a revalidation needs the tag
// and the version, not the body: a tag entry answers it with a 304 when
// the version has not moved, and a request that does not name the tag
// runs the store as a miss does. So a cache too small for the bodies of
// every page its clients poll still spares the store their
// revalidations.
type responseCache struct {
	max int64 // bytes; an answer over max/16 is kept as a tag

	mu      sync.Mutex
	size    int64                      // of the answers and marks
	tagSize int64                      // of the tags
	entries map[cacheKey]*list.Element // of *cacheEntry, in lru or tags
	lru     list.List                  // answers and marks; front: most recently used
	tags    list.List                  // tag entries; front: most recently used
}

// cacheEntry is the answer kept under key, encoded from data of version
// version. An entry with no answer (enc nil) is a tag entry when it has
// a tag (the ETag of the answer it held, see responseCache), and
// otherwise a mark: the store gave no version with the answer of this
// key, so the next request reads the version first (see fromCache).
type cacheEntry struct {
	key     cacheKey
	version int64
	enc     *encoded
	tag     *encoded // a tag entry's: status 200, the ETag, no body
}

// entryOverhead is what an entry costs beyond its bytes: the map slot,
// the list element and the headers' slices, roughly.
const entryOverhead = 256

func newResponseCache(maxBytes int64) *responseCache {
	return &responseCache{max: maxBytes, entries: make(map[cacheKey]*list.Element)}
}

// cost is what e (nil for a mark) costs the cache under k.
func cost(k cacheKey, e *encoded) int64 {
	n := len(k.org) + len(k.base) + len(k.path) + len(k.query) + len(k.only) + len(k.key)
	if e != nil {
		n += len(e.body) + len(e.etag)
		if e.linkValue != nil {
			n += len(e.linkValue[0])
		}
	}
	return int64(n) + entryOverhead
}

// get returns what the cache holds under k: an answer and its version; a
// tag entry (e nil, tag not nil) and its version; a mark (found, both
// nil); or nothing (not found).
func (c *responseCache) get(k cacheKey) (e, tag *encoded, version int64, found bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[k]
	if !ok {
		return nil, nil, 0, false
	}
	ent := el.Value.(*cacheEntry)
	if ent.tag != nil {
		c.tags.MoveToFront(el)
	} else {
		c.lru.MoveToFront(el)
	}
	return ent.enc, ent.tag, ent.version, true
}

// put keeps e (nil: a mark) under k, read at version, in place of what k
// held, making room as evict does; an answer larger than a sixteenth of
// the cache is kept as a tag entry, so that a few large pages cannot
// flush everything else. A mark never replaces an answer.
func (c *responseCache) put(k cacheKey, version int64, e *encoded) {
	n := cost(k, e)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e != nil && n > c.max/16 {
		c.keepTag(k, version, tagOf(e))
		return
	}
	if el, ok := c.entries[k]; ok {
		ent := el.Value.(*cacheEntry)
		if e == nil && ent.enc != nil || ent.enc != nil && ent.version == version { // a concurrent miss kept it first
			c.lru.MoveToFront(el)
			return
		}
		if ent.tag != nil { // an answer again: back among the answers
			c.tags.Remove(el)
			c.tagSize -= cost(ent.key, ent.tag)
			delete(c.entries, k)
		} else {
			c.lru.MoveToFront(el)
			c.size += n - cost(ent.key, ent.enc)
			ent.version, ent.enc = version, e
			c.evict()
			return
		}
	}
	c.entries[k] = c.lru.PushFront(&cacheEntry{key: k, version: version, enc: e})
	c.size += n
	c.evict()
}

// evict makes room among the answers: the least recently used answers
// leave their tag (keepTag), marks go.
func (c *responseCache) evict() {
	for c.size > c.max {
		old := c.lru.Back()
		ent := old.Value.(*cacheEntry)
		c.lru.Remove(old)
		delete(c.entries, ent.key)
		c.size -= cost(ent.key, ent.enc)
		if ent.enc != nil && ent.enc.status == http.StatusOK {
			c.keepTag(ent.key, ent.version, tagOf(ent.enc))
		}
	}
}

// keepTag keeps tag under k, at version, as a tag entry, in place of what
// k held, and drops the least recently used tags past an eighth of the
// cache. c.mu is held.
func (c *responseCache) keepTag(k cacheKey, version int64, tag *encoded) {
	if el, ok := c.entries[k]; ok {
		ent := el.Value.(*cacheEntry)
		if ent.tag == nil { // an answer or a mark: it goes
			c.lru.Remove(el)
			c.size -= cost(ent.key, ent.enc)
		} else {
			c.tags.Remove(el)
			c.tagSize -= cost(ent.key, ent.tag)
		}
		delete(c.entries, k)
	}
	if tag == nil {
		return
	}
	c.entries[k] = c.tags.PushFront(&cacheEntry{key: k, version: version, tag: tag})
	c.tagSize += cost(k, tag)
	for c.tagSize > c.max/8 {
		old := c.tags.Back()
		ent := old.Value.(*cacheEntry)
		c.tags.Remove(old)
		delete(c.entries, ent.key)
		c.tagSize -= cost(ent.key, ent.tag)
	}
}

// tagOf is what a tag entry keeps of e: its ETag, to answer a
// revalidation with a 304 (see send); nil for an answer that is not a
// 200, which no If-None-Match revalidates.
func tagOf(e *encoded) *encoded {
	if e.status != http.StatusOK {
		return nil
	}
	return &encoded{status: http.StatusOK, etag: e.etag, etagValue: e.etagValue}
}

// cached wraps fn, a route that reads the store, in the response cache
// (when the handler has one) and then in api: authentication, scope and
// rate limit come first, on every request, cached or not.
func (h *handler) cached(scope auth.Scope, fn apiFunc) http.HandlerFunc {
	if h.cache == nil {
		return h.api(scope, fn)
	}
	return h.api(scope, h.fromCache(fn))
}

// fromCache returns fn's answer from the cache when the caller's
// organization has not changed since it was kept, and otherwise runs fn
// and has write keep its encoded answer.
//
// An answer is never kept under a version newer than its data. When the
// cache holds something under the key, the version is read first, before
// fn runs: the answer is served if it was kept at that version, and fn's
// answer is otherwise kept at it (or at the version its page was read at,
// which is as new or newer, and exact). When the cache holds nothing
// under the key, it cannot answer whatever the version, so fn runs at
// once: a page whose store read the version in its own snapshot
// (store.Page.Version; bunstore's invoice lists do, in the page's
// statement) is kept at that version, and a miss costs the store one
// round trip instead of two. An answer without a version is not kept,
// but the key is marked, so the next request reads the version first.
func (h *handler) fromCache(fn apiFunc) apiFunc {
	return func(r *http.Request, c caller) (response, error) {
		k := cacheKey{org: c.Org.ID, path: r.URL.EscapedPath(), query: r.URL.RawQuery, only: onlyKey(c.ProjectIDs), projects: c.Allows(auth.ScopeProjects)}
		if h.cfg.publicURL == "" {
			k.base = h.publicURL(r)
		}
		if strings.Contains(r.URL.RawQuery, paramUpdatedSince+"=") {
			// What binds meta.next beyond the org, path and query the key
			// holds already (cursor.go's binding).
			k.key = c.KeyID + "\x00" + c.Subject
		}
		var v int64
		e, tag, kept, found := h.cache.get(k)
		if found {
			var err error
			if v, err = h.st.DataVersion(r.Context(), c.Org.ID); err != nil {
				return response{}, err
			}
			if e != nil && kept == v && h.fresh(e) {
				return response{encoded: e}, nil
			}
			if tag != nil && kept == v && matches(r.Header.Values("If-None-Match"), tag.etag) {
				return response{encoded: tag}, nil // a 304 (send), which needs no body
			}
		}
		res, err := fn(r, c)
		if err != nil || res.noStore {
			return res, err
		}
		switch {
		case res.version != 0:
			v = res.version
		case !found:
			h.cache.put(k, 0, nil)
			return res, nil
		}
		res.keep = func(e *encoded) { h.cache.put(k, v, e) }
		return res, nil
	}
}

// fresh reports whether e may be served again: its meta.syncedThrough,
// if any, is at most a second behind the current second. A page of
// changes kept longer is read anew, so that every 200 carries a
// syncedThrough that follows the clock while its data do not change (a
// 304 may still stand for it: the ETag leaves syncedThrough out).
func (h *handler) fresh(e *encoded) bool {
	return e.synced == 0 || h.cfg.now().Unix()-e.synced <= 1
}

// onlyKey encodes a restriction to projects for the cache key: "" for
// none, else each id with its length, so that no two lists encode alike.
func onlyKey(ids []string) string {
	if ids == nil {
		return ""
	}
	var b strings.Builder
	b.WriteByte('!')
	for _, id := range ids {
		b.WriteString(strconv.Itoa(len(id)))
		b.WriteByte(':')
		b.WriteString(id)
	}
	return b.String()
}
