package statusapi

import (
	"net/http"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// route is one path of the API and what serves it.
type route struct {
	path    string
	handler http.HandlerFunc
}

// routes lists every route of the handler in one place. Each path is
// registered for GET (which in ServeMux also matches HEAD) and, without a
// method, for everything else, which is 405; any other path is 404. Both
// are JSON, where ServeMux's defaults are plain text.
func (h *handler) routes() *http.ServeMux {
	mux := http.NewServeMux()
	for _, rt := range h.table() {
		mux.HandleFunc("GET "+rt.path, rt.handler)
		mux.HandleFunc(rt.path, h.methodNotAllowed)
	}
	mux.HandleFunc("/", h.notFound)
	return mux
}

// Routes returns the path patterns that New registers for st with opts,
// such as "/v1/projects/{id}": every route of v1, which every store.Store
// serves (so what st is changes nothing), and the opt-in routes of the
// options given: /v1/webhook_endpoints and its deliveries with
// WithWebhookEndpoints, /v1/request_logs with WithRequestLog. Each
// answers GET and HEAD. Options are not validated (see Validate). For
// documentation and tests: package openapi's tests check the document
// against it.
func Routes(st store.Store, opts ...Option) []string {
	cfg := defaultConfig()
	for _, opt := range opts {
		opt(&cfg)
	}
	h := newHandler(st, nil, nil, cfg)
	var out []string
	for _, rt := range h.table() {
		out = append(out, rt.path)
	}
	return out
}

// table is the one list of the handler's routes. Each route that takes a
// key names the scope a restricted key needs for it (see auth.Scope;
// CONTRACT.md, "Restricted keys"). Routes whose answer is a function of
// the store's data are cached (see cache.go); links and the deletion feed,
// which also depend on the time, are not.
func (h *handler) table() []route {
	all := []route{
		{"/v1/projects", h.cached(auth.ScopeProjects, h.listProjects)},
		{"/v1/projects/{id}", h.cached(auth.ScopeProjects, h.getProject)},
		{"/v1/projects/{id}/milestones", h.cached(auth.ScopeProjects, h.listMilestones)},
		{"/v1/milestones/{id}", h.cached(auth.ScopeProjects, h.getMilestone)},
		{"/v1/deliverables", h.cached(auth.ScopeDeliverables, h.listDeliverables)},
		{"/v1/deliverables/{id}", h.cached(auth.ScopeDeliverables, h.getDeliverable)},
		{"/v1/deliverables/{id}/download", h.api(auth.ScopeDeliverables, h.downloadLink)},
		// The signed link: no key and no rate limit, the signature is
		// the credential (see download.go).
		{"/v1/deliverables/{id}/file", h.serveFile},
		{"/v1/invoices", h.cached(auth.ScopeInvoices, h.listInvoices)},
		{"/v1/invoices/{id}", h.cached(auth.ScopeInvoices, h.getInvoice)},
		{"/v1/invoices/{id}/document", h.api(auth.ScopeInvoices, h.invoiceDocumentLink)},
		{"/v1/invoices/{id}/file", h.serveInvoiceDocument}, // signed, as a deliverable's
		// The OpenAPI document: public, like any API description.
		{"/v1/openapi.json", h.serveOpenAPI},
		// The reference page and its script (docs.go): public too.
		{"/v1/docs", h.serveDocs},
		{"/v1/docs/redoc.standalone.js", h.serveDocsScript},
	}
	for _, resource := range resources {
		all = append(all, resource(h)...)
	}
	return all
}

// resources are the resources added after the first contract, each in
// its own file (see the package doc, "Adding a resource"). The first four
// are part of v1 and served from every store.Store and
// ratelimit.Limiter; the last two are opted in by their options and
// return nil without them, so that their paths answer 404 like any
// unknown path.
var resources = []func(h *handler) []route{
	deletionRoutes,   // deletions.go: store.Changes
	threadRoutes,     // threads.go: store.Threads
	usageRoutes,      // usage.go: ratelimit.Limiter's Peek
	eventRoutes,      // events.go: store.Events
	webhookRoutes,    // webhooks.go: WithWebhookEndpoints
	requestLogRoutes, // requestlog.go: WithRequestLog
}
