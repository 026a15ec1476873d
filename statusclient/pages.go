package statusclient

import (
	"context"
	"iter"
	"net/url"
	"strconv"
)

// MaxLimit is the largest page the API serves; a larger Limit is refused
// with INVALID_PARAMETER, not clamped. The All... iterators ask for pages of
// MaxLimit items unless told otherwise.
const MaxLimit = 100

// Meta is the paging information of a list response.
type Meta struct {
	Page    int `json:"page"`     // the page served, from 1
	PerPage int `json:"per_page"` // the effective limit
	Total   int `json:"total"`    // all items matching the filters, whatever the page
}

// Page is one page of a list. A page past the end has no Items and the true
// Meta.Total.
type Page[T any] struct {
	Items []T
	Meta  Meta
	// ETag identifies this page as served, "" when the server sent none.
	// Pass it as the IfNoneMatch option of the same call to learn cheaply
	// whether the page changed (see ErrNotModified).
	ETag string
}

// HasNext reports whether pages follow this one.
func (p Page[T]) HasNext() bool {
	return len(p.Items) > 0 && p.Meta.PerPage > 0 &&
		len(p.Items) >= p.Meta.PerPage && p.Meta.Page*p.Meta.PerPage < p.Meta.Total
}

// listPage fetches one page of a list route.
func listPage[T any](ctx context.Context, c *Client, r request) (Page[T], error) {
	env, etag, err := get[[]T](ctx, c, r)
	if err != nil {
		return Page[T]{ETag: etag}, err
	}
	return Page[T]{Items: env.Data, Meta: env.Meta, ETag: etag}, nil
}

// pageQuery holds the paging parameters; zero values are left to the
// server's defaults (page 1, limit 20).
func pageQuery(page, limit int) url.Values {
	q := url.Values{}
	setInt(q, "page", page)
	setInt(q, "limit", limit)
	return q
}

func setInt(q url.Values, name string, v int) {
	if v != 0 {
		q.Set(name, strconv.Itoa(v))
	}
}

func setString(q url.Values, name, v string) {
	if v != "" {
		q.Set(name, v)
	}
}

// walk yields every item of the pages that fetch returns, from page first
// (1 when 0), until a page says none follows. It stops when the consumer
// stops; an error is yielded once, with a zero item, and ends the walk.
func walk[T any](ctx context.Context, first int, fetch func(ctx context.Context, page int) (Page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for page := max(first, 1); ; page++ {
			p, err := fetch(ctx, page)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range p.Items {
				if !yield(item, nil) {
					return
				}
			}
			if !p.HasNext() {
				return
			}
		}
	}
}

// walkLimit is the page size of the All... iterators: limit, or MaxLimit
// when 0.
func walkLimit(limit int) int {
	if limit == 0 {
		return MaxLimit
	}
	return limit
}
