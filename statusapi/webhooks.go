package statusapi

import (
	"context"
	"net/http"
	"slices"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// webhookEndpoint is a store.WebhookEndpoint on the wire: never its
// secret.
type webhookEndpoint struct {
	ID             string   `json:"id"`
	URL            string   `json:"url"`
	Types          []string `json:"types"`
	Status         string   `json:"status"`
	DisabledReason *string  `json:"disabledReason"`
	CreatedAt      string   `json:"createdAt"`
	UpdatedAt      string   `json:"updatedAt"`
}

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
	ID          string  `json:"id"`
	EventID     string  `json:"eventId"`
	EventType   string  `json:"eventType"`
	Attempt     int     `json:"attempt"`
	AttemptedAt string  `json:"attemptedAt"`
	StatusCode  *int    `json:"statusCode"`
	Error       *string `json:"error"`
	DurationMs  int64   `json:"durationMs"`
}

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
// keeps, normally in the handler's own store (store.Memory and bunstore
// keep them). Without it those routes are not served (404, like unknown
// paths, and not in Routes). A nil st is refused, not taken for "off":
// New panics, and Validate returns an *option.Error naming the option,
// so that a store that failed to open never drops the routes silently.
func WithWebhookEndpoints(st store.WebhookEndpoints) Option {
	return func(c *config) { c.webhooks, c.webhooksSet = st, true }
}

var _ = registerRoutes(webhookRoutes)

// webhookRoutes are the routes of WithWebhookEndpoints; none without.
// Not cached: deliveries are no data version's change.
func webhookRoutes(h *handler) []route {
	if h.cfg.webhooks == nil {
		return nil
	}
	w := webhooks{st: h.cfg.webhooks, h: h}
	return []route{
		h.keyedRoute("/v1/webhook_endpoints", auth.ScopeWebhooks, w.list, "/v1/webhook_endpoints"),
		h.keyedRoute("/v1/webhook_endpoints/{id}/deliveries", auth.ScopeWebhooks, w.deliveries, "/v1/webhook_endpoints/we_1/deliveries"),
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
	q, err := listParamsOf(r, listSpec{statuses: strs(store.WebhookEndpointStatuses)})
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
