package devsettings

import (
	"errors"
	"net/http"

	"github.com/clientstatus/clientstatus/store"
)

// errUnsupported: the webhook API has no such operation yet.
var errUnsupported = errors.New("devsettings: not supported by this webhook API")

// deliveries returns a page of an endpoint's attempts, newest first.
func (h *handler) deliveries(r *http.Request, id string, page, limit int) (store.Page[store.WebhookDelivery], error) {
	return store.Page[store.WebhookDelivery]{}, nil
}

// reveal returns an endpoint's signing secret.
func (h *handler) reveal(r *http.Request, id string) (string, error) { return "", errUnsupported }

// test sends a webhook.test event to an endpoint.
func (h *handler) test(r *http.Request, id string) error { return errUnsupported }
