package statusapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// seedWebhooks gives org_a a second endpoint, unrestricted (seed made we_1, restricted to p1), with
// attempts on the first: one older than 30 days, two recent.
func seedWebhooks(t *testing.T, a *testAPI) {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// seed made we_1.
	a.clock.Set(now.Add(time.Second))
	must(a.store.CreateWebhookEndpoint(ctx, store.WebhookEndpoint{ID: "we_all", OrgID: "org_a", URL: "https://hooks.example.com/all",
		Types: []string{"invoice.paid"}, Enabled: false, DisabledReason: "gone", Secret: []byte("sealed")}))
	must(a.store.CreateWebhookEndpoint(ctx, store.WebhookEndpoint{ID: "we_b", OrgID: "org_b", URL: "https://hooks.example.com/b",
		Types: []string{"*"}, Enabled: true}))
	job := store.WebhookJob{OrgID: "org_a", EndpointID: "we_1", EventID: "evt_1", EventType: "invoice.paid"}
	for i, d := range []store.WebhookDelivery{
		{ID: "whd_old", AttemptedAt: now.Add(-31 * 24 * time.Hour), StatusCode: 200},
		{ID: "whd_1", AttemptedAt: now.Add(-time.Hour), Error: "timeout", Duration: 15 * time.Second},
		{ID: "whd_2", AttemptedAt: now.Add(-time.Minute), StatusCode: 200, Duration: 84 * time.Millisecond},
	} {
		d.EndpointID, d.EventID, d.EventType, d.Attempt = "we_1", "evt_1", "invoice.paid", i+1
		must(a.store.FinishWebhookAttempt(ctx, job, d, store.WebhookOutcome{}))
	}
}

func TestWebhookEndpoints(t *testing.T) {
	is := is.New(t)
	a := newTestAPI(t)
	seedWebhooks(t, a)

	res := a.do("GET", "/v1/webhook_endpoints", "a")
	is.Equal(res.Code, 200)
	is.True(!strings.Contains(res.Body.String(), "secret")) // never a secret
	var body struct {
		Data []map[string]any    `json:"data"`
		Meta struct{ Total int } `json:"meta"`
	}
	is.NoErr(json.Unmarshal(res.Body.Bytes(), &body))
	is.Equal(body.Meta.Total, 2) // org_a's, not org_b's
	is.Equal(body.Data[0]["id"], "we_1")
	is.Equal(body.Data[0]["status"], "enabled")
	is.Equal(body.Data[0]["disabledReason"], nil)
	is.Equal(body.Data[1]["status"], "disabled")
	is.Equal(body.Data[1]["disabledReason"], "gone")

	res = a.do("GET", "/v1/webhook_endpoints", "p1 only")
	is.NoErr(json.Unmarshal(res.Body.Bytes(), &body))
	is.Equal(body.Meta.Total, 1) // only the endpoint of its projects
	is.Equal(body.Data[0]["id"], "we_1")

	res = a.do("GET", "/v1/webhook_endpoints", "invoices:read")
	is.Equal(res.Code, 403) // webhooks:read is needed
	is.Equal(a.do("GET", "/v1/webhook_endpoints", "webhooks:read").Code, 200)
	is.Equal(a.do("GET", "/v1/webhook_endpoints?limit=0", "a").Code, 400)
}

// TestWebhookEndpointsStatus: the list filters on status (enabled,
// disabled), totals counting only those; another value is 400 naming
// status.
func TestWebhookEndpointsStatus(t *testing.T) {
	is := is.New(t)
	a := newTestAPI(t)
	seedWebhooks(t, a)
	var body struct {
		Data []map[string]any    `json:"data"`
		Meta struct{ Total int } `json:"meta"`
	}
	for _, tc := range []struct{ key, status, want string }{
		{"a", "enabled", "we_1"},
		{"a", "disabled", "we_all"},
		{"p1 only", "enabled", "we_1"},
	} {
		res := a.do("GET", "/v1/webhook_endpoints?status="+tc.status+"&limit=1", tc.key)
		is.Equal(res.Code, 200)
		body.Data = nil
		is.NoErr(json.Unmarshal(res.Body.Bytes(), &body))
		is.Equal(body.Meta.Total, 1)
		is.Equal(len(body.Data), 1)
		is.Equal(body.Data[0]["id"], tc.want)
		is.Equal(body.Data[0]["status"], tc.status)
	}
	res := a.do("GET", "/v1/webhook_endpoints?status=disabled", "p1 only")
	is.NoErr(json.Unmarshal(res.Body.Bytes(), &body))
	is.Equal(body.Meta.Total, 0) // we_all is not of its projects
	res = a.do("GET", "/v1/webhook_endpoints?status=Enabled", "a")
	is.Equal(res.Code, 400)
	is.True(strings.Contains(res.Body.String(), `"param":"status"`))
}

func TestWebhookDeliveries(t *testing.T) {
	is := is.New(t)
	a := newTestAPI(t)
	seedWebhooks(t, a)
	res := a.do("GET", "/v1/webhook_endpoints/we_1/deliveries", "a")
	is.Equal(res.Code, 200)
	var body struct {
		Data []map[string]any    `json:"data"`
		Meta struct{ Total int } `json:"meta"`
	}
	is.NoErr(json.Unmarshal(res.Body.Bytes(), &body))
	is.Equal(body.Meta.Total, 2)          // the last 30 days only
	is.Equal(body.Data[0]["id"], "whd_2") // newest first
	is.Equal(body.Data[0]["statusCode"], 200.0)
	is.Equal(body.Data[0]["error"], nil)
	is.Equal(body.Data[0]["durationMs"], 84.0)
	is.Equal(body.Data[1]["statusCode"], nil)
	is.Equal(body.Data[1]["error"], "timeout")
	is.Equal(body.Data[1]["attempt"], 2.0)

	is.Equal(a.do("GET", "/v1/webhook_endpoints/we_b/deliveries", "a").Code, 404)         // another organization's
	is.Equal(a.do("GET", "/v1/webhook_endpoints/we_all/deliveries", "p1 only").Code, 404) // outside the key's projects
	is.Equal(a.do("GET", "/v1/webhook_endpoints/we_1/deliveries", "p1 only").Code, 200)
	is.Equal(a.do("GET", "/v1/webhook_endpoints/nope/deliveries", "a").Code, 404)
}

// The webhook reads of the failing stores of TestStoreFailures.

func (s failStore) CreateWebhookEndpoint(context.Context, store.WebhookEndpoint) error { return s.err }
func (s failStore) GetWebhookEndpoint(context.Context, string, string) (store.WebhookEndpoint, error) {
	return store.WebhookEndpoint{}, s.err
}
func (s failStore) ListWebhookEndpoints(context.Context, string, store.WebhookEndpointQuery) (store.Page[store.WebhookEndpoint], error) {
	return store.Page[store.WebhookEndpoint]{}, s.err
}
func (s failStore) UpdateWebhookEndpoint(context.Context, string, string, func(*store.WebhookEndpoint) error) (store.WebhookEndpoint, error) {
	return store.WebhookEndpoint{}, s.err
}
func (s failStore) DeleteWebhookEndpoint(context.Context, string, string) error { return s.err }
func (s failStore) ListWebhookDeliveries(context.Context, string, string, store.WebhookDeliveryQuery) (store.Page[store.WebhookDelivery], error) {
	return store.Page[store.WebhookDelivery]{}, s.err
}

func (b blockingStore) CreateWebhookEndpoint(ctx context.Context, _ store.WebhookEndpoint) error {
	return b.wait(ctx)
}
func (b blockingStore) GetWebhookEndpoint(ctx context.Context, _, _ string) (store.WebhookEndpoint, error) {
	return store.WebhookEndpoint{}, b.wait(ctx)
}
func (b blockingStore) ListWebhookEndpoints(ctx context.Context, _ string, _ store.WebhookEndpointQuery) (store.Page[store.WebhookEndpoint], error) {
	return store.Page[store.WebhookEndpoint]{}, b.wait(ctx)
}
func (b blockingStore) UpdateWebhookEndpoint(ctx context.Context, _, _ string, _ func(*store.WebhookEndpoint) error) (store.WebhookEndpoint, error) {
	return store.WebhookEndpoint{}, b.wait(ctx)
}
func (b blockingStore) DeleteWebhookEndpoint(ctx context.Context, _, _ string) error {
	return b.wait(ctx)
}
func (b blockingStore) ListWebhookDeliveries(ctx context.Context, _, _ string, _ store.WebhookDeliveryQuery) (store.Page[store.WebhookDelivery], error) {
	return store.Page[store.WebhookDelivery]{}, b.wait(ctx)
}

// TestWebhookDeliveriesPaging: the deliveries are paged as other lists.
func TestWebhookDeliveriesPaging(t *testing.T) {
	is := is.New(t)
	b := newTestAPI(t)
	res := b.do("GET", "/v1/webhook_endpoints/we_1/deliveries?limit=0", "a")
	is.Equal(res.Code, 400) // paging as other lists
	is.Equal(errorOf(t, res).Error.Param, "limit")
}
