package statusapi

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/apidoc"
	"github.com/clientstatus/clientstatus/store"
)

// resource is a kind of item that the API lists and reads by id: its wire
// form and the project it belongs to. Its list and get make the route
// functions of the shape every such resource shares, so that a resource's
// file is its wire type, its conversion and the declaration of its routes
// (see milestones.go):
//
//   - a list parses page, limit and the parameters of its listSpec
//     (listParamsOf), and expand when the resource belongs to projects;
//     reads a page from the store (read builds the store's query from the
//     parameters and the caller, whose projects it passes on); and writes
//     it, each item in its wire form with its expanded project;
//   - an item parses expand (or, for a resource of no project, refuses
//     every parameter), reads the item of the path's id, answers 404 for
//     one of a project the caller may not see, as for an unknown id, and
//     writes it.
//
// The event feed, the deletion feed and the webhook endpoints are not
// resources in this sense: their parameters (a cursor, a required since),
// their visibility (an endpoint's list of projects) and their pages
// (filtered after the store for a restricted key) are their own.
type resource[T, W any] struct {
	// kind is the kind of the resource's items (deletion records,
	// events); statuses its states, for a list's status parameter and the
	// events typed by a change of status (none: the resource has none).
	kind     store.Kind
	statuses []string
	// filters are the filters every list of the resource takes (such
	// as dueBefore, for items with a dueAt), beside its status.
	filters []*param
	// scope is the one a restricted key needs to read the resource:
	// auth.ScopeOfKind(kind), set by declare, so that the scope of a
	// kind's routes, deletion records and events is one line of
	// auth/kinds.go.
	scope auth.Scope
	// wire is an item's wire form, given the project of expand=project
	// (the zero expanded, no key, when not asked).
	wire func(T, expanded) W
	// projectOf is the project an item belongs to, "" for none (a
	// retainer invoice), which a key restricted to projects never sees.
	// nil for a resource that belongs to no project (a project itself, a
	// message): its routes take no expand, and its read applies the
	// caller's projects itself.
	projectOf func(T) string
	// schema is what the OpenAPI document says of the item's wire form
	// W (see describeWire); declare sets its name (the kind's), its type
	// and its statuses.
	schema apidoc.Wire
}

// kindStatuses are the statuses of each kind of item that has some, from
// its resource: a change of status is also an event typed by the new one
// (see validEventType).
var kindStatuses = map[store.Kind][]string{
	projects.kind:     projects.statuses,
	milestones.kind:   milestones.statuses,
	deliverables.kind: deliverables.statuses,
	invoices.kind:     invoices.statuses,
	threads.kind:      threads.statuses,
}

// declare returns res with the scope of its kind (auth.ScopeOfKind) and
// its wire form's schema for the OpenAPI document (wireSchemas). A kind without a scope
// would serve the resource to every key: declare panics, at init, so that
// every test of the package fails on it.
func declare[T, W any](res resource[T, W]) resource[T, W] {
	res.scope = auth.ScopeOfKind(res.kind)
	if res.scope == "" {
		panic(fmt.Sprintf("statusapi: kind %q has no scope in auth (auth/kinds.go)", res.kind))
	}
	res.schema = describeWire[W](res.schema)
	res.schema.Name, res.schema.Resource, res.schema.Statuses = res.name(), true, res.statuses
	return res
}

// plain is the wire of a resource of no project, whose items never carry
// an expanded project.
func plain[T, W any](out func(T) W) func(T, expanded) W {
	return func(v T, _ expanded) W { return out(v) }
}

// listRead reads a page of a list route from the store: q is the parsed
// query, r the request (for its context and path), c the caller, whose
// projects the store's query carries.
type listRead[T any] func(r *http.Request, c caller, q listParams) (store.Page[T], error)

// itemRead reads the item id of the caller's organization.
type itemRead[T any] func(ctx context.Context, c caller, id string) (T, error)

// inOrg is the itemRead of a store's get of an organization's item by
// id, such as store.Store.GetMilestone, on h's store when it serves.
func inOrg[T any](h *handler, get func(st store.Store, ctx context.Context, org, id string) (T, error)) itemRead[T] {
	return func(ctx context.Context, c caller, id string) (T, error) { return get(h.st, ctx, c.Org.ID, id) }
}

// orgList is the listRead of a store's list of an organization's items
// by a query of a page, a status and the filters, such as
// store.Store.ListInvoices, on h's store: the query holds the list's
// parameters as parsed, and the caller's projects.
func orgList[Q listQuery[S], S ~string, T any](h *handler, list func(st store.Store, ctx context.Context, org string, q Q) (store.Page[T], error)) listRead[T] {
	return func(r *http.Request, c caller, q listParams) (store.Page[T], error) {
		return list(h.st, r.Context(), c.Org.ID, Q{PageRequest: q.PageRequest, Status: S(q.Status), ListFilter: q.ListFilter})
	}
}

// listQuery is a store's query of a list of items of status S
// (store.InvoiceQuery).
type listQuery[S ~string] interface {
	~struct {
		store.PageRequest
		Status S
		store.ListFilter
	}
}

// listRoute is a list of the resource at path, cached and needing the
// resource's scope; example is its request in the tests (see route).
// spec says which parameters beside page and limit it takes: the
// resource's filters, status, of the resource's statuses, when it has
// some, and expand for a resource of projects, are added. read reads the page.
func (res resource[T, W]) listRoute(h *handler, path, example string, spec listSpec, read listRead[T]) route {
	spec.filters = append(slices.Clip(spec.filters), res.filters...)
	if len(res.statuses) > 0 {
		spec.filters = append(spec.filters, statusParam(res.name(), res.statuses))
	}
	// In the order of parameters, the status (in none of them) first.
	slices.SortStableFunc(spec.filters, func(a, b *param) int {
		return slices.Index(parameters, a) - slices.Index(parameters, b)
	})
	if res.projectOf != nil {
		spec.expand = true
	}
	rt := h.cachedRoute(path, res.scope, res.list(h, spec, read), example)
	rt.list, rt.resource, rt.answer = &spec, res.name(), listAnswer[W]()
	return rt
}

// itemRoute is one item of the resource at path, by its {id}, read with
// read: cached and needing the resource's scope; example is its request
// in the tests (see route).
func (res resource[T, W]) itemRoute(h *handler, path, example string, read itemRead[T]) route {
	rt := h.cachedRoute(path, res.scope, res.get(h, read), example)
	rt.resource, rt.expand, rt.answer = res.name(), res.projectOf != nil, itemAnswer[W]()
	return rt
}

// name is the resource's name in the OpenAPI document: its kind,
// capitalized ("Milestone"), which names its schemas and responses.
func (res resource[T, W]) name() string {
	k := string(res.kind)
	return strings.ToUpper(k[:1]) + k[1:]
}

// list is the route function of a list of the resource, as listRoute
// says.
func (res resource[T, W]) list(h *handler, spec listSpec, read listRead[T]) apiFunc {
	return func(r *http.Request, c caller) (response, error) {
		var (
			q     listParams
			asked bool
			err   error
		)
		if spec.expand {
			q, asked, err = expandableList(r, spec)
		} else {
			q, err = listParamsOf(r, spec)
		}
		if err == nil {
			err = q.walk(r, c)
		}
		if err != nil {
			return response{}, err
		}
		q.OnlyProjects = c.ProjectIDs
		p, err := read(r, c, q)
		if err != nil {
			return response{}, err
		}
		if res.projectOf == nil {
			return page(q, p, func(v T) W { return res.wire(v, expanded{}) }), nil
		}
		return expandedPage(h, r, c, asked, q, p, res.projectOf, res.wire)
	}
}

// get is the route function of one item of the resource, as itemRoute
// says.
func (res resource[T, W]) get(h *handler, read itemRead[T]) apiFunc {
	return func(r *http.Request, c caller) (response, error) {
		if res.projectOf == nil {
			if err := noParams(r); err != nil {
				return response{}, err
			}
			v, err := read(r.Context(), c, r.PathValue("id"))
			if err != nil {
				return response{}, err
			}
			return item(res.wire(v, expanded{})), nil
		}
		asked, err := itemExpand(r)
		if err != nil {
			return response{}, err
		}
		v, err := read(r.Context(), c, r.PathValue("id"))
		if err == nil {
			err = c.sees(res.projectOf(v))
		}
		if err != nil {
			return response{}, err
		}
		return expandedItem(h, r, c, asked, v, res.projectOf, res.wire)
	}
}
