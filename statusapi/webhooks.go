package statusapi

import (
	"context"
	"net/http"
	"slices"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/apidoc"
	"github.com/clientstatus/clientstatus/store"
)

// webhookEndpoint is a store.WebhookEndpoint on the wire: never its
// secret.
type webhookEndpoint struct {
	ID             string   `json:"id" oa:"minLength=1"`
	URL            string   `json:"url" oa:"minLength=1"`
	Types          []string `json:"types" oa:"minLength=1"`
	Status         string   `json:"status" oa:"ref=WebhookEndpointStatus"`
	DisabledReason *string  `json:"disabledReason" oa:"minLength=1"`
	CreatedAt      string   `json:"createdAt" oa:"time"`
	UpdatedAt      string   `json:"updatedAt" oa:"time"`
}

var webhookEndpointWire = describeWire[webhookEndpoint](apidoc.Wire{
	Name:        "WebhookEndpoint",
	Description: "A URL that the organization's events are POSTed to, signed as Standard Webhooks specifies, registered by the agency's portal. Its signing secret is never served. Every key is always present; absent values are `null`.",
	Examples:    `[{"id": "we_1", "url": "https://hooks.example.com/clientstatus", "types": ["invoice.paid", "deliverable.in_review"], "status": "enabled", "disabledReason": null, "createdAt": "2026-02-01T09:00:00Z", "updatedAt": "2026-02-01T09:00:00Z"}]`,
	Fields: map[string]string{
		"id":             "Opaque endpoint identifier.",
		"url":            "Where events are POSTed.",
		"types":          "The event types delivered: `[\"*\"]` for every type, or types such as `invoice.paid`.",
		"status":         "Whether events are delivered.",
		"disabledReason": "Why a disabled endpoint is: `disabled` (by the agency), `gone` (it answered `410 Gone`), `failing_for_5_days`; `null` when enabled.",
		"createdAt":      "When the endpoint was registered.",
		"updatedAt":      "When its settings or status last changed.",
	},
})

func webhookEndpointOut(e store.WebhookEndpoint) webhookEndpoint {
	out := webhookEndpoint{ID: e.ID, URL: e.URL, Types: e.Types, Status: "enabled",
		CreatedAt: timestamp(e.CreatedAt), UpdatedAt: timestamp(e.UpdatedAt)}
	if !e.Enabled {
		out.Status = "disabled"
		reason := e.DisabledReason
		out.DisabledReason = &reason
	}
	if out.Types == nil {
		out.Types = []string{}
	}
	return out
}

// webhookDelivery is a store.WebhookDelivery on the wire: never a
// response body.
type webhookDelivery struct {
	ID          string  `json:"id" oa:"minLength=1"`
	EventID     string  `json:"eventId" oa:"minLength=1"`
	EventType   string  `json:"eventType" oa:"minLength=1"`
	Attempt     int     `json:"attempt" oa:"minimum=1"`
	AttemptedAt string  `json:"attemptedAt" oa:"time"`
	StatusCode  *int    `json:"statusCode" oa:"minimum=100,maximum=599"`
	Error       *string `json:"error" oa:"enum=timeout|connection|tls|refused_address|redirect"`
	DurationMs  int64   `json:"durationMs" oa:"minimum=0"`
}

var webhookDeliveryWire = describeWire[webhookDelivery](apidoc.Wire{
	Name:        "WebhookDelivery",
	Description: "One attempt to deliver an event to an endpoint. Never holds a response body or a secret. Every key is always present; absent values are `null`.",
	Examples:    `[{"id": "whd_5f1c", "eventId": "evt_0000000000000042", "eventType": "invoice.paid", "attempt": 1, "attemptedAt": "2026-03-01T09:00:01Z", "statusCode": 200, "error": null, "durationMs": 84}]`,
	Fields: map[string]string{
		"id":          "Opaque attempt identifier.",
		"eventId":     "The event delivered: the `webhook-id` header, the same on every attempt.",
		"eventType":   "The event's type.",
		"attempt":     "The attempt's number, from 1.",
		"attemptedAt": "When the attempt started: its `webhook-timestamp`.",
		"statusCode":  "The endpoint's HTTP status; `null` when no answer came. A 2xx is a success; a 3xx is not followed.",
		"error":       "Why no answer came, or why the answer counts as none: no answer within 15 seconds, no connection, a TLS failure, an address that is not public, or a redirect (never followed); `null` otherwise.",
		"durationMs":  "How long the attempt took, in milliseconds.",
	},
})

func webhookDeliveryOut(d store.WebhookDelivery) webhookDelivery {
	out := webhookDelivery{ID: d.ID, EventID: d.EventID, EventType: d.EventType, Attempt: d.Attempt,
		AttemptedAt: timestamp(d.AttemptedAt), DurationMs: d.Duration.Milliseconds()}
	if d.StatusCode != 0 {
		code := d.StatusCode
		out.StatusCode = &code
	}
	if d.Error != "" {
		e := d.Error
		out.Error = &e
	}
	return out
}

// WithWebhookEndpoints serves GET /v1/webhook_endpoints and GET
// /v1/webhook_endpoints/{id}/deliveries from st: the endpoints and
// delivery log that the portal's webhook dispatcher (package webhook)
// keeps, normally in the handler's own store (memstore.Store and bunstore
// keep them). Without it those routes are not served (404, like unknown
// paths, and not in Routes); nil keeps that default.
func WithWebhookEndpoints(st store.WebhookEndpoints) Option {
	return func(c *config) { c.webhooks = st }
}

// webhookRoutes are the routes of WithWebhookEndpoints; none without.
// Not cached: deliveries are no data version's change.
func (h *handler) webhookRoutes() []route {
	if h.cfg.webhooks == nil {
		return nil
	}
	w := webhooks{st: h.cfg.webhooks, h: h}
	return []route{
		h.keyedRoute("/v1/webhook_endpoints", auth.ScopeWebhooks, w.list, "/v1/webhook_endpoints").answers(listAnswer[webhookEndpoint]()).describe(operation{
			ID: "listWebhookEndpoints", Tag: "Webhooks",
			Summary:     "List webhook endpoints",
			Description: "The organization's webhook endpoints, oldest first: each event that an endpoint's `types`, and the scopes and projects the agency gave it, let it see is POSTed to its `url` as the event JSON (as `/v1/events` serves it), signed as Standard Webhooks specifies (`webhook-id`, `webhook-timestamp`, `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` with the endpoint's `whsec_` secret, which the agency's portal shows once). A 2xx answer within 15 seconds is a success; anything else is retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, with jitter; `410 Gone` disables the endpoint at once, and 5 days of failure disable it. Needs the scope `webhooks:read`; a key restricted to projects sees only the endpoints restricted to some of its projects. Served when the deployment serves webhook endpoints (statusapi.WithWebhookEndpoints); otherwise the path answers 404 like any unknown path.",
			Responses:   map[int]string{200: "WebhookEndpointListResponse", 304: "NotModified"},
		}, params.Page, params.Limit, params.WebhookEndpointStatus, params.IfNoneMatch),
		h.keyedRoute("/v1/webhook_endpoints/{id}/deliveries", auth.ScopeWebhooks, w.deliveries, "/v1/webhook_endpoints/we_1/deliveries").answers(listAnswer[webhookDelivery]()).describe(operation{
			ID: "listWebhookDeliveries", Tag: "Webhooks",
			Summary:     "List an endpoint's deliveries",
			Description: "The endpoint's delivery attempts of the last 30 days, newest first. Needs the scope `webhooks:read`; an endpoint the key does not see answers 404.",
			Responses:   map[int]string{200: "WebhookDeliveryListResponse", 304: "NotModified"},
		}, params.ID, params.Page, params.Limit, params.IfNoneMatch),
	}
}

type webhooks struct {
	st store.WebhookEndpoints
	h  *handler
}

// visible reports whether a caller sees an endpoint: a key restricted to
// projects sees only the endpoints restricted to some of its projects
// (their deliveries name events of those projects alone). Scopes do not
// narrow further: webhooks:read reads every endpoint's settings and log.
func visible(c caller, e store.WebhookEndpoint) bool {
	if c.ProjectIDs == nil {
		return true
	}
	return e.ProjectIDs != nil && !slices.ContainsFunc(e.ProjectIDs, func(p string) bool { return !c.AllowsProject(p) })
}

// list serves GET /v1/webhook_endpoints?status&page&limit: oldest first.
func (w webhooks) list(r *http.Request, c caller) (response, error) {
	q, err := listParamsOf(r, listSpec{filters: []*param{params.WebhookEndpointStatus}})
	if err != nil {
		return response{}, err
	}
	status := store.WebhookEndpointStatus(q.Status)
	if c.ProjectIDs == nil {
		p, err := w.st.ListWebhookEndpoints(r.Context(), c.Org.ID, store.WebhookEndpointQuery{PageRequest: q.PageRequest, Status: status})
		if err != nil {
			return response{}, err
		}
		return page(q, p, webhookEndpointOut), nil
	}
	// A key restricted to projects: an organization has few endpoints,
	// read them all and keep those it sees, so totals count only them.
	all, err := w.all(r.Context(), c, status)
	if err != nil {
		return response{}, err
	}
	p := store.Page[store.WebhookEndpoint]{Total: len(all), Items: []store.WebhookEndpoint{}}
	if from := q.Offset(); from < len(all) {
		p.Items = all[from:min(len(all), from+q.Limit)]
	}
	return page(q, p, webhookEndpointOut), nil
}

func (w webhooks) all(ctx context.Context, c caller, status store.WebhookEndpointStatus) ([]store.WebhookEndpoint, error) {
	var out []store.WebhookEndpoint
	for n := 1; ; n++ {
		p, err := w.st.ListWebhookEndpoints(ctx, c.Org.ID, store.WebhookEndpointQuery{PageRequest: store.PageRequest{Page: n, Limit: store.MaxLimit}, Status: status})
		if err != nil {
			return nil, err
		}
		for _, e := range p.Items {
			if visible(c, e) {
				out = append(out, e)
			}
		}
		if len(p.Items) < store.MaxLimit {
			return out, nil
		}
	}
}

// deliveries serves GET /v1/webhook_endpoints/{id}/deliveries?page&limit:
// the endpoint's attempts of the last 30 days, newest first. An endpoint
// the caller does not see is 404.
func (w webhooks) deliveries(r *http.Request, c caller) (response, error) {
	q, err := listParamsOf(r, listSpec{})
	if err != nil {
		return response{}, err
	}
	id := r.PathValue("id")
	e, err := w.st.GetWebhookEndpoint(r.Context(), c.Org.ID, id)
	if err == nil && !visible(c, e) {
		err = errHidden
	}
	if err != nil {
		return response{}, err
	}
	p, err := w.st.ListWebhookDeliveries(r.Context(), c.Org.ID, id, store.WebhookDeliveryQuery{PageRequest: q.PageRequest,
		Since: w.h.cfg.now().Add(-store.WebhookRetention)})
	if err != nil {
		return response{}, err
	}
	return page(q, p, webhookDeliveryOut), nil
}
