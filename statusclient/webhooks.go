package statusclient

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// WebhookTolerance is how far a webhook's timestamp may be from the
// receiver's clock, either way, for VerifyWebhook to accept it: a replayed
// request older than that is refused.
const WebhookTolerance = 5 * time.Minute

// ErrWebhookSignature is wrapped by VerifyWebhook's error for a request
// that is not a genuine, recent webhook: headers missing, no signature
// matching the secret, a timestamp outside WebhookTolerance, or a body that
// is not an event.
var ErrWebhookSignature = errors.New("statusclient: webhook not verified")

// VerifyWebhook checks an incoming webhook request as Standard Webhooks
// specifies, for the client's receiving side, and returns its event: one
// of the space-separated "v1," signatures of webhook-signature must be the
// HMAC-SHA256, keyed with secret ("whsec_" and base64, as the portal
// showed it), of webhook-id, webhook-timestamp and the body joined with
// dots, and the timestamp within WebhookTolerance of now. Pass the body
// exactly as received (read it before decoding anything). A delivery may
// come more than once (retries): use Event.ID to process each once.
func VerifyWebhook(secret string, header http.Header, body []byte, now time.Time) (Event, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(key) == 0 {
		return Event{}, fmt.Errorf("statusclient: webhook secret: want whsec_ and base64")
	}
	id, ts, sigs := header.Get("webhook-id"), header.Get("webhook-timestamp"), header.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return Event{}, fmt.Errorf("%w: missing webhook-id, webhook-timestamp or webhook-signature", ErrWebhookSignature)
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return Event{}, fmt.Errorf("%w: webhook-timestamp %q is not Unix seconds", ErrWebhookSignature, ts)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > WebhookTolerance || d < -WebhookTolerance {
		return Event{}, fmt.Errorf("%w: timestamp too far from now (replayed, or a clock is wrong)", ErrWebhookSignature)
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.", id, ts)
	mac.Write(body)
	want := mac.Sum(nil)
	ok := false
	for _, s := range strings.Fields(sigs) {
		v, sig, _ := strings.Cut(s, ",")
		got, err := base64.StdEncoding.DecodeString(sig)
		if v == "v1" && err == nil && hmac.Equal(got, want) {
			ok = true
		}
	}
	if !ok {
		return Event{}, fmt.Errorf("%w: no signature matches the secret", ErrWebhookSignature)
	}
	var e Event
	if err := json.Unmarshal(body, &e); err != nil || e.ID != id {
		return Event{}, fmt.Errorf("%w: the body is not the event the headers name", ErrWebhookSignature)
	}
	return e, nil
}

// WebhookEndpoint is one of the organization's webhook endpoints, which
// the portal registers. Its secret is never served.
type WebhookEndpoint struct {
	ID    string   `json:"id"`
	URL   string   `json:"url"`
	Types []string `json:"types"` // ["*"] for every event
	// Status is "enabled" or "disabled".
	Status string `json:"status"`
	// DisabledReason says why a disabled endpoint is: "disabled" (by the
	// portal), "gone" (it answered 410), "failing_for_5_days".
	DisabledReason *string   `json:"disabledReason"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

// WebhookDelivery is one attempt to deliver an event to an endpoint.
type WebhookDelivery struct {
	ID          string    `json:"id"`
	EventID     string    `json:"eventId"`
	EventType   string    `json:"eventType"`
	Attempt     int       `json:"attempt"`
	AttemptedAt time.Time `json:"attemptedAt"`
	// StatusCode is nil when no answer came.
	StatusCode *int `json:"statusCode"`
	// Error is nil, or why no answer came or counts as none: "timeout",
	// "connection", "tls", "refused_address", "redirect".
	Error      *string `json:"error"`
	DurationMs int     `json:"durationMs"`
}

// The routes of webhook endpoints: /v1/webhook_endpoints and
// /v1/webhook_endpoints/{id}/deliveries (no route serves one endpoint or
// delivery by id).
var (
	webhookEndpoints  = collection[WebhookEndpoint, ListOptions]{path: "/webhook_endpoints"}
	webhookDeliveries = nested[WebhookDelivery, ListOptions]{parent: "/webhook_endpoints", leaf: "/deliveries"}
)

// ListWebhookEndpoints returns one page of the organization's webhook
// endpoints, oldest first. It needs the scope webhooks:read.
func (c *Client) ListWebhookEndpoints(ctx context.Context, opts ListOptions) ([]WebhookEndpoint, *Response, error) {
	return webhookEndpoints.list(ctx, c, opts)
}

// AllWebhookEndpoints walks every page of ListWebhookEndpoints (see
// ListOptions).
func (c *Client) AllWebhookEndpoints(ctx context.Context, opts ListOptions) iter.Seq2[WebhookEndpoint, error] {
	return webhookEndpoints.all(ctx, c, opts)
}

// ListWebhookDeliveries returns one page of an endpoint's delivery
// attempts of the last 30 days, newest first. It needs the scope
// webhooks:read.
func (c *Client) ListWebhookDeliveries(ctx context.Context, endpointID string, opts ListOptions) ([]WebhookDelivery, *Response, error) {
	return webhookDeliveries.in(endpointID).list(ctx, c, opts)
}

// AllWebhookDeliveries walks every page of ListWebhookDeliveries (see
// ListOptions).
func (c *Client) AllWebhookDeliveries(ctx context.Context, endpointID string, opts ListOptions) iter.Seq2[WebhookDelivery, error] {
	return webhookDeliveries.in(endpointID).all(ctx, c, opts)
}
