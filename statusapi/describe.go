package statusapi

import (
	"slices"
	"strings"

	"github.com/clientstatus/clientstatus/internal/apidoc"
	"github.com/clientstatus/clientstatus/store"
)

func init() { apidoc.Describe = describeAPI }

// describeAPI is the handler's route table, with every opt-in route, its
// wire types and the kinds of item, as the OpenAPI document is generated
// from them (internal/build/openapigen).
func describeAPI() apidoc.API { return describe(allOptIn()) }

// describe is describeAPI of the table under cfg.
func describe(cfg config) apidoc.API {
	base := map[string]bool{}
	for _, p := range Routes() {
		base[p] = true
	}
	var api apidoc.API
	for _, rt := range operations(cfg) {
		r := apidoc.Route{Path: rt.path, Operation: rt.doc, Scope: string(rt.scope), Keyed: rt.keyed, Cached: rt.cached,
			OptIn: !base[rt.path], Resource: rt.resource, List: rt.list != nil}
		if strings.Contains(rt.path, "{id}") && !slices.Contains(rt.takes, params.ID) {
			r.PathParams = []apidoc.Param{params.ID.Param}
		}
		for _, p := range rt.params() {
			r.Params = append(r.Params, p.Param)
		}
		for _, d := range rt.deprecations {
			r.Deprecations = append(r.Deprecations, apidoc.Deprecation{Param: d.param, Field: d.field, Sunset: d.sunset})
		}
		api.Routes = append(api.Routes, r)
	}
	for _, p := range parameters {
		api.Params = append(api.Params, p.Param)
	}
	api.Wires = wireSchemas()
	for _, w := range api.Wires {
		if w.Resource && len(w.Statuses) > 0 {
			api.Params = append(api.Params, statusParam(w.Name, w.Statuses).Param)
		}
	}
	for _, k := range store.Kinds {
		api.Kinds = append(api.Kinds, apidoc.Kind{Name: string(k), Statuses: kindStatuses[k], Thread: k == store.KindMessage})
	}
	return api
}

// allOptIn is the default configuration with every opt-in route served.
func allOptIn() config {
	cfg, _ := newConfig([]Option{WithWebhookEndpoints(describedOnly{}), WithRequestLog(new(RequestRecorder))})
	return cfg
}

// describedOnly turns the webhook routes on in a configuration that is
// described, never served: its methods are never called.
type describedOnly struct{ store.WebhookEndpoints }

// params are the parameters of rt's operations, in order: a list's (page,
// limit, its filters and after with updatedSince), then the route's own,
// expand, If-None-Match for a cached route and X-Request-Id.
func (rt route) params() []*param {
	var out []*param
	expand := rt.expand
	if l := rt.list; l != nil {
		out = append(out, params.Page, params.Limit)
		for _, f := range l.filters {
			out = append(out, f)
			if f == params.UpdatedSince {
				out = append(out, params.Cursor)
			}
		}
		expand = expand || l.expand
	}
	out = append(out, rt.takes...)
	if expand {
		out = append(out, params.Expand)
	}
	if rt.cached {
		out = append(out, params.IfNoneMatch)
	}
	return append(out, params.RequestID)
}
