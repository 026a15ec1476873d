package statusapi

import (
	"net/http"

	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/store"
)

// response is what a route handler returns; write (in conditional.go) is
// the one place that turns it into bytes: the envelope, the ETag and its
// 304 (with the rate-limit refund), the Link header of a list, and the
// cache headers. Make one with item, page or credential.
type response struct {
	body func(w http.ResponseWriter, r *http.Request) // writes the envelope; no body for a HEAD r

	list  *listParams // the parameters of a list; nil for an item
	total int         // the count of all items matching a list's filters
	// link is the Link header of an answer that is not a paged list
	// (the event feed's rel="next"); "" for none.
	link string
	// syncedThrough is the meta.syncedThrough of a page of changes, as
	// written, "" for none: left out of the ETag (see encode).
	syncedThrough string
	// version is the data version the store read the page at (see
	// store.Page.Version), 0 when it did not say.
	version int64

	// noStore marks a credential (a signed download link): no ETag and
	// no cache may keep it.
	noStore bool

	// encoded, when not nil, is the answer already encoded (from the
	// response cache): body and the fields above are unused.
	encoded *encoded
	// keep, when not nil, is given the encoded answer once write has
	// made it, for the response cache.
	keep func(*encoded)
}

// item is the response of a route that returns one item.
func item(v any) response {
	return response{body: func(w http.ResponseWriter, r *http.Request) { envelope.WriteItem(w, r, v) }}
}

// page is the response of a list route: the page's items converted to
// their wire form, the total and, for a page of changes, syncedThrough
// (see listParams.meta).
func page[T, W any](q listParams, p store.Page[T], wire func(T) W) response {
	items := make([]W, len(p.Items))
	for i, it := range p.Items {
		items[i] = wire(it)
	}
	meta := q.meta(p.Total, p.SyncedThrough)
	meta.Next = nextOf(q, p)
	q.next = meta.Next
	return response{
		body: func(w http.ResponseWriter, r *http.Request) {
			if !writeFastList(w, r, items, meta) {
				envelope.WriteList(w, r, items, meta)
			}
		},
		list:  &q,
		total: p.Total,

		syncedThrough: meta.SyncedThrough,
		version:       p.Version,
	}
}

// credential is the response of a route that returns a secret for a short
// time (a signed link): sent with Cache-Control: no-store and no ETag.
func credential(v any) response {
	res := item(v)
	res.noStore = true
	return res
}
