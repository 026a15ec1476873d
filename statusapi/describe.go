package statusapi

import (
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
		r := apidoc.Route{
			Path: rt.path, ID: rt.doc.id, Tag: rt.doc.tag, Summary: rt.doc.summary, Description: rt.doc.description,
			HeadSummary: rt.doc.headSummary, HeadDescription: rt.doc.headDescription,
			Scope: string(rt.scope), Keyed: rt.keyed, Cached: rt.cached, OptIn: !base[rt.path],
			Resource: rt.resource, Expand: rt.expand, Params: rt.doc.params, Responses: rt.doc.responses,
		}
		for _, d := range rt.deprecations {
			r.Deprecations = append(r.Deprecations, apidoc.Deprecation{Param: d.param, Field: d.field, Sunset: d.sunset})
		}
		if l := rt.list; l != nil {
			r.List = &apidoc.List{Status: len(l.statuses) > 0, Project: l.project, DueBefore: l.due, Since: l.since, Expand: l.expand}
		}
		api.Routes = append(api.Routes, r)
	}
	api.Wires = wireSchemas()
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
