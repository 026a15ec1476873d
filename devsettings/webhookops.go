package devsettings

import (
	"net/http"

	"github.com/clientstatus/clientstatus/store"
)

// deliveries returns a page of an endpoint's attempts of the last 30
// days, newest first.
func (h *handler) deliveries(r *http.Request, id string, page, limit int) (store.Page[store.WebhookDelivery], error) {
	return h.cfg.webhooks.Deliveries(r.Context(), req(r).orgID(), id,
		store.WebhookDeliveryQuery{PageRequest: store.PageRequest{Page: page, Limit: limit}})
}

// reveal returns an endpoint's signing secret.
func (h *handler) reveal(r *http.Request, id string) (string, error) {
	return h.cfg.webhooks.RevealSecret(r.Context(), req(r).orgID(), id)
}

// test sends a webhook.test event to an endpoint.
func (h *handler) test(r *http.Request, id string) error {
	_, err := h.cfg.webhooks.SendTest(r.Context(), req(r).orgID(), id)
	return err
}
