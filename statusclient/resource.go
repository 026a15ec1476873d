package statusclient

import (
	"context"
	"iter"
)

// The client's side of a resource is declared, not written again. Paging,
// the All... walk, the conditional request, id escaping and the empty-id
// check are here and in pages.go, once for every resource; a resource's
// file ("widgets.go") holds:
//
//   - its wire type, and its enums (a WidgetStatus whose constants are the
//     store's type of the same name: the contract test pairs them by name)
//     and its DeletionWidget constant of DeletionType (one of store.Kinds);
//   - its options type, embedding ListOptions, with filters (the route's
//     query parameters) and etag (IfNoneMatch, or "" when it has none);
//   - one collection (or nested, for a list below a parent item) naming
//     its routes;
//   - its List..., All... and Get... methods, one call each.
//
// The tests need no edit to know it: TestEveryRouteHasAClientMethod finds
// its routes in statusapi.Routes and its methods by reflection, and
// TestEmptyIDSendsNothing its methods that take an id. Sync keeps the
// lists that synclists.go declares and no other: a list it should keep is
// a field of Replica and of SyncCursor, key and stamp methods, one line of
// plainLists, and its routes in the change fake of the Sync tests
// (changefake_test.go).

// collection is a list route at path ("/projects") of items of type T,
// selected by options of type O, whose items are also got one by one at
// path/{id}.
type collection[T any, O listOptions] struct {
	path string
}

// list returns one page (the List... methods).
func (r collection[T, O]) list(ctx context.Context, c *Client, opts O) ([]T, *Response, error) {
	return list[T](ctx, c, r.path, opts)
}

// all walks every page (the All... methods).
func (r collection[T, O]) all(ctx context.Context, c *Client, opts O) iter.Seq2[T, error] {
	return walk[T](ctx, c, r.path, opts)
}

// get returns the item id, with the options of opts[0] if any (the
// Get... methods).
func (r collection[T, O]) get(ctx context.Context, c *Client, id string, opts []ItemOptions) (T, *Response, error) {
	return getItem[T](ctx, c, r.path, id, opts)
}

// nested is a list route below one item of a parent, parent/{id}/leaf
// ("/projects/{id}/milestones" is parent "/projects", leaf "/milestones"),
// of items of type T selected by options of type O. Its items, when they
// can be got one by one, are at leaf/{id} ("/milestones/{id}"): the API
// addresses every item from the root. An empty parent id is an error,
// returned without a request.
type nested[T any, O listOptions] struct {
	parent, leaf string
}

// path is the list route below the parent item id.
func (r nested[T, O]) path(id string) (string, error) {
	path, err := itemPath(r.parent, id)
	return path + r.leaf, err
}

// list returns one page of the items below the parent item id.
func (r nested[T, O]) list(ctx context.Context, c *Client, id string, opts O) ([]T, *Response, error) {
	path, err := r.path(id)
	if err != nil {
		return nil, nil, err
	}
	return list[T](ctx, c, path, opts)
}

// all walks every page of the items below the parent item id.
func (r nested[T, O]) all(ctx context.Context, c *Client, id string, opts O) iter.Seq2[T, error] {
	path, err := r.path(id)
	if err != nil {
		return failed[T](err)
	}
	return walk[T](ctx, c, path, opts)
}

// get returns the item id at leaf/{id}, with the options of opts[0] if
// any.
func (r nested[T, O]) get(ctx context.Context, c *Client, id string, opts []ItemOptions) (T, *Response, error) {
	return getItem[T](ctx, c, r.leaf, id, opts)
}
