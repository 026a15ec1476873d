package statusclient

import (
	"context"
	"iter"
)

// The client's side of a resource is declared, not written again. Paging,
// the All... walk, the conditional request, id escaping and the empty-id
// check are here and in pages.go, once for every resource; a resource's
// file ("widgets.go") holds its wire type and enums (a WidgetStatus whose
// constants are the store's type of the same name, paired by the contract
// test, and a DeletionWidget of DeletionType), its options type
// (ListOptions embedded, each filter a field tagged with its query
// parameter: see encode), one collection or nested naming its routes, and
// its List..., All... and Get... methods, one call each.
// TestEveryRouteHasAClientMethod, TestEmptyIDSendsNothing and
// TestEveryOptionIsSent find them by reflection, with no edit. A list that
// Sync should keep is a field of Replica and of SyncCursor, a key method,
// one line of syncLists (synclists.go), and its routes in the change fake
// of the Sync tests (changefake_test.go).

// collection is a list route at path ("/projects") of items of type T,
// selected by options of type O, whose items are also got one by one at
// path/{id}. err, when not nil, is returned by every call without a
// request (see nested).
type collection[T any, O listOptions] struct {
	path string
	err  error
}

// list returns one page (the List... methods).
func (r collection[T, O]) list(ctx context.Context, c *Client, opts O) ([]T, *Response, error) {
	if r.err != nil {
		return nil, nil, r.err
	}
	return list[T](ctx, c, r.path, opts)
}

// all walks every page (the All... methods).
func (r collection[T, O]) all(ctx context.Context, c *Client, opts O) iter.Seq2[T, error] {
	if r.err != nil {
		return failed[T](r.err)
	}
	return walk[T](ctx, c, r.path, opts)
}

// get returns the item id, with the options of opts[0] if any (the
// Get... methods).
func (r collection[T, O]) get(ctx context.Context, c *Client, id string, opts []ItemOptions) (T, *Response, error) {
	var zero T
	path, err := itemPath(r.path, id)
	if err != nil {
		return zero, nil, err
	}
	req := request{path: path}
	if len(opts) > 0 {
		req.query, req.ifNoneMatch = encode(opts[0])
	}
	env, resp, err := get[T](ctx, c, req)
	return env.Data, resp, err
}

// nested is a list route below one item of a parent, parent/{id}/leaf
// ("/projects/{id}/milestones" is parent "/projects", leaf "/milestones"),
// of items of type T selected by options of type O. The API addresses
// every item from the root: those that can be got one by one are got
// from a collection at leaf.
type nested[T any, O listOptions] struct {
	parent, leaf string
}

// in is the list below the parent item id; an empty id is an error,
// returned without a request.
func (r nested[T, O]) in(id string) collection[T, O] {
	path, err := itemPath(r.parent, id)
	return collection[T, O]{path: path + r.leaf, err: err}
}
