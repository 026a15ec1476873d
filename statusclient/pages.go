package statusclient

import (
	"cmp"
	"context"
	"iter"
	"maps"
	"net/url"
	"strconv"
	"time"
)

// MaxLimit is the largest page the API serves; a larger Limit is refused
// with INVALID_PARAMETER, not clamped. The All... iterators ask for pages of
// MaxLimit items unless told otherwise.
const MaxLimit = 100

// ListOptions are the paging options of every list, embedded in each
// list's options type (ProjectListOptions, InvoiceListOptions...), as in
// go-github. Zero means the server's default: page 1, 20 items a page; the
// All... iterators start at Page and ask for MaxLimit items a page when
// Limit is 0. A value out of range (Page < 1, Limit outside 1..MaxLimit) is
// sent as it is and refused by the server with INVALID_PARAMETER.
type ListOptions struct {
	Page  int // the page to serve, from 1
	Limit int // items a page, 1..MaxLimit
	// After is the Meta.Next of the page before, to walk a list asked
	// with UpdatedSince (or the deletions) by cursor, in place of Page:
	// such a walk never skips an item that kept its place.
	After string
}

// query returns the paging parameters together with filters, which it
// leaves as they are; zero values are left out, to the server's defaults.
func (o ListOptions) query(filters url.Values) url.Values {
	q := maps.Clone(filters)
	if q == nil {
		q = url.Values{}
	}
	setInt(q, "page", o.Page)
	setInt(q, "limit", o.Limit)
	setString(q, "after", o.After)
	return q
}

// Meta is the paging information of a list response.
type Meta struct {
	Page    int `json:"page"`     // the page served, from 1
	PerPage int `json:"per_page"` // the effective limit
	Total   int `json:"total"`    // all items matching the filters, whatever the page
	// SyncedThrough is set on a page of changes (a list asked with
	// UpdatedSince, a page of deletions) by a server that follows the
	// contract's sync rule, and zero otherwise: every write this page
	// could not see yet has, or will get, an UpdatedAt (DeletedAt) at or
	// after it. A client keeping a copy asks again from the smallest
	// SyncedThrough of the pages it walked, not from the largest
	// UpdatedAt it saw (see Client.Sync).
	SyncedThrough time.Time `json:"syncedThrough,omitzero"`
	// Next is set on a page of changes by a server that walks them by
	// cursor: the ListOptions.After of the items that follow, "" when
	// none follows (or the server sends none).
	Next string `json:"next"`
}

// listOptions is what the generic list helpers read from the options
// type of a list (ProjectListOptions, InvoiceListOptions...): its paging
// (ListOptions, embedded, gives paging), the route's filters as query
// parameters, zero values left out, and the ETag of a conditional request
// ("" for none). Every options type says all three: one that has no
// filter or no IfNoneMatch says so with nil or "", so that none is left
// out by mistake.
type listOptions interface {
	paging() ListOptions
	filters() url.Values
	etag() string
}

// paging returns o: what an options type embedding ListOptions pages by.
func (o ListOptions) paging() ListOptions { return o }

// pagingOnly are the options of a list that has no filter and no
// conditional request, which takes ListOptions alone (the webhook lists).
type pagingOnly struct{ ListOptions }

func (pagingOnly) filters() url.Values { return nil }
func (pagingOnly) etag() string        { return "" }

// query is listOptions given as they are: a page of an internal walk
// (walk's own, Sync's).
type query struct {
	lo          ListOptions
	params      url.Values
	ifNoneMatch string
}

func (q query) paging() ListOptions { return q.lo }
func (q query) filters() url.Values { return q.params }
func (q query) etag() string        { return q.ifNoneMatch }

// list fetches one page of the list route at path, as opts say: their
// paging, the route's filters, and a conditional request when their ETag
// is not "".
func list[T any](ctx context.Context, c *Client, path string, opts listOptions) ([]T, *Response, error) {
	env, resp, err := get[[]T](ctx, c, request{path: path, query: opts.paging().query(opts.filters()), ifNoneMatch: opts.etag()})
	if err != nil {
		return nil, resp, err
	}
	resp.setPage(env.Meta, len(env.Data))
	return env.Data, resp, nil
}

// walk is the one page walker of the All... iterators: it yields every item
// of the list route at path, with the filters of opts, page after page
// from their Page (1 when 0), their Limit items a page (MaxLimit when 0),
// until a Response has no NextPage (or one that does not move forward,
// from a server that ignores the page asked for); a list of changes
// (asked with UpdatedSince) it walks by Meta.Next instead, to its end.
// Their ETag is ignored.
// It stops when the consumer stops; an error is yielded once, with a zero
// item, and ends the walk. It yields items only (see the All... methods).
func walk[T any](ctx context.Context, c *Client, path string, opts listOptions) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		q := query{lo: opts.paging(), params: opts.filters()}
		if q.lo.After == "" {
			q.lo.Page = cmp.Or(q.lo.Page, 1)
		}
		q.lo.Limit = cmp.Or(q.lo.Limit, MaxLimit)
		for {
			items, resp, err := list[T](ctx, c, path, q)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range items {
				if !yield(item, nil) {
					return
				}
			}
			switch {
			case resp.Meta.Next != "": // a list of changes: by cursor
				q.lo.Page, q.lo.After = 0, resp.Meta.Next
			case q.lo.After != "" || resp.NextPage <= q.lo.Page:
				return
			default:
				q.lo.Page = resp.NextPage
			}
		}
	}
}

// failed is a walk that yields err at once: a route that cannot be asked.
func failed[T any](err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		yield(zero, err)
	}
}

func setInt(q url.Values, name string, v int) {
	if v != 0 {
		q.Set(name, strconv.Itoa(v))
	}
}

// timestampLayout is the contract's one format for timestamps, in query
// parameters too: RFC 3339 in UTC with Z, whole seconds.
const timestampLayout = "2006-01-02T15:04:05Z"

// formatTimestamp writes t in the contract's format: in UTC, its fraction
// of a second dropped, which for an inclusive lower bound can only widen
// the result, never miss an item.
func formatTimestamp(t time.Time) string {
	return t.UTC().Truncate(time.Second).Format(timestampLayout)
}

// setTime sets the timestamp parameter name to t, unless t is zero.
func setTime(q url.Values, name string, t time.Time) {
	if !t.IsZero() {
		q.Set(name, formatTimestamp(t))
	}
}

func setString(q url.Values, name, v string) {
	if v != "" {
		q.Set(name, v)
	}
}
