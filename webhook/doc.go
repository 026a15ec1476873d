// Package webhook delivers an organization's events to the webhook
// endpoints its portal registers.
//
// The portal registers endpoints through Endpoints (create, list, update,
// disable and enable, rotate or reveal a secret, delete, redeliver an
// event, send a test event, read the deliveries), and runs a Dispatcher
// beside the handler, on every replica:
//
//	key, err := webhook.DeriveKey(signingKey) // or 32 random bytes of the portal's own
//	eps := webhook.NewEndpoints(st, st, key)
//	e, secret, err := eps.Create(ctx, "org_a", webhook.Settings{URL: "https://hooks.example.com/cs"})
//	// show secret to the agency once: it is stored sealed, never shown again
//	d := webhook.NewDispatcher(st, st, key, webhook.WithObserver(otelstatus.WebhookObserver()))
//	d.Start(ctx)
//	defer d.Stop(shutdownCtx)
//
// Each event an endpoint may see (its types, and its scopes and projects
// as a restricted key's) is POSTed as the event JSON of GET /v1/events,
// with the headers webhook-id (the event id, the same on every attempt),
// webhook-timestamp and webhook-signature ("v1," and the base64
// HMAC-SHA256 of "id.timestamp.body" under the endpoint's "whsec_"
// secret; both the new and the previous secret's for RotationOverlap
// after a rotation). A 2xx within DeliveryTimeout is a success; anything
// else, a 3xx included (redirects are never followed), is retried on the
// schedule (DefaultSchedule, with jitter, honouring a longer Retry-After
// up to the schedule's longest step). 410 Gone disables the endpoint at
// once, and DisableAfter of failures too.
//
// Deliveries go to https URLs and public addresses only: the dialer
// refuses loopback, private, link-local, carrier-grade NAT, metadata,
// multicast, documentation and other special ranges on the address it
// connects to, whatever DNS answered, and no proxy is used.
// WithAllowLocal lifts both, for development.
//
// Endpoint secrets are sealed with AES-256-GCM under the key given to
// NewEndpoints and NewDispatcher, never logged, never served; response
// bodies are never stored.
package webhook
