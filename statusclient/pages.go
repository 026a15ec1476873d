package statusclient

import (
	"cmp"
	"context"
	"iter"
	"maps"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// MaxLimit is the largest page the API serves; a larger Limit is refused
// with INVALID_PARAMETER, not clamped. The All... iterators ask for pages of
// MaxLimit items unless told otherwise.
const MaxLimit = 100

// ListOptions are the paging options of every list, embedded in each
// list's options type (ProjectListOptions, InvoiceListOptions...), as in
// go-github. Zero means the server's default: page 1, 20 items a page. A
// value out of range (Page < 1, Limit outside 1..MaxLimit) is sent as it
// is and refused by the server with INVALID_PARAMETER.
//
// Two fields mean the same in every options type that has them.
// UpdatedSince, when not zero, keeps only the items updated at or after
// it, ordered by UpdatedAt ascending, then ID: an inclusive bound, sent in
// UTC whole seconds (see Client.Sync). IfNoneMatch is the Response.ETag of
// an earlier answer to the same call: when the page has not changed since,
// the call returns ErrNotModified instead of it.
//
// Each List... method has an All... iterator, which walks every page from
// Page, MaxLimit items a page unless Limit says otherwise, and yields each
// item once, ignoring IfNoneMatch. An error is yielded once and ends the
// walk (Error.Response holds its Response); breaking out of the loop stops
// it without further requests. The pages' Responses are not yielded: to
// watch the rate budget page by page, call the List... method and follow
// Response.NextPage.
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

// listOptions is an options type of a list (ProjectListOptions,
// InvoiceListOptions...): it embeds ListOptions, and encode reads the
// rest by its tags.
type listOptions interface {
	paging() ListOptions
}

// paging returns o: what an options type embedding ListOptions pages by.
func (o ListOptions) paging() ListOptions { return o }

// encode reads the fields of an options struct by their tags, as go-github's
// options are read: a field tagged url:"name" is the query parameter name,
// left out when zero (a time.Time in the contract's format, a []string
// joined with commas); the one tagged header:"If-None-Match" is the ETag of
// a conditional request. Untagged fields (the embedded ListOptions) are not
// read. A tagged field of another type panics: TestEveryOptionIsSent sends
// every options type.
func encode(opts any) (q url.Values, ifNoneMatch string) {
	q = url.Values{}
	v := reflect.ValueOf(opts)
	for i := range v.NumField() {
		f, fv := v.Type().Field(i), v.Field(i)
		if f.Tag.Get("header") == "If-None-Match" {
			ifNoneMatch = fv.String()
		}
		if name := f.Tag.Get("url"); name != "" {
			setString(q, name, param(f, fv))
		}
	}
	return q, ifNoneMatch
}

// param is the value of a query parameter, "" to leave it out.
func param(f reflect.StructField, v reflect.Value) string {
	switch x := v.Interface().(type) {
	case time.Time:
		if x.IsZero() {
			return ""
		}
		return formatTimestamp(x)
	case []string:
		return strings.Join(x, ",")
	}
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Int:
		if v.Int() == 0 {
			return ""
		}
		return strconv.FormatInt(v.Int(), 10)
	}
	panic("statusclient: no query parameter of type " + f.Type.String() + " (field " + f.Name + ")")
}

// list fetches one page of the list route at path, as opts say: their
// paging, the route's filters, and a conditional request when their ETag
// is not "".
func list[T any](ctx context.Context, c *Client, path string, opts listOptions) ([]T, *Response, error) {
	filters, etag := encode(opts)
	return page[T](ctx, c, request{path: path, query: opts.paging().query(filters), ifNoneMatch: etag})
}

// page fetches one page of a list.
func page[T any](ctx context.Context, c *Client, r request) ([]T, *Response, error) {
	env, resp, err := get[[]T](ctx, c, r)
	if err != nil {
		return nil, resp, err
	}
	resp.setPage(env.Meta, len(env.Data))
	return env.Data, resp, nil
}

// walk is the one page walker of the All... iterators (see ListOptions):
// page after page from opts' Page (1 when 0), Limit items a page (MaxLimit
// when 0), until a Response has no NextPage or one that does not move
// forward (from a server that ignores the page asked for); a list of
// changes (asked with UpdatedSince) it walks by Meta.Next instead, to its
// end. An error is yielded once, with a zero item, and ends the walk.
func walk[T any](ctx context.Context, c *Client, path string, opts listOptions) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		filters, _ := encode(opts)
		lo := opts.paging()
		if lo.After == "" {
			lo.Page = cmp.Or(lo.Page, 1)
		}
		lo.Limit = cmp.Or(lo.Limit, MaxLimit)
		for {
			items, resp, err := page[T](ctx, c, request{path: path, query: lo.query(filters)})
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
				lo.Page, lo.After = 0, resp.Meta.Next
			case lo.After != "" || resp.NextPage <= lo.Page:
				return
			default:
				lo.Page = resp.NextPage
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

func setString(q url.Values, name, v string) {
	if v != "" {
		q.Set(name, v)
	}
}
