package webhook

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/eventwire"
	"github.com/clientstatus/clientstatus/store"
)

// Store is what webhooks need of a store: the endpoints and their log,
// and the queue of deliveries. memstore.Store and bunstore implement
// it.
type Store interface {
	store.WebhookEndpoints
	store.WebhookQueue
}

// RotationOverlap is how long an endpoint's previous secret still signs
// after RotateSecret: both signatures are sent, so the receiver can move
// to the new secret at its pace.
const RotationOverlap = 24 * time.Hour

// The reasons an endpoint is disabled (store.WebhookEndpoint's
// DisabledReason, served as disabledReason).
const (
	ReasonDisabled = "disabled"           // by the portal
	ReasonGone     = "gone"               // the endpoint answered 410 Gone
	ReasonFailing  = "failing_for_5_days" // no attempt succeeded for DisableAfter
)

// ErrInvalid is returned (wrapped, and wrapping store.ErrInvalid) for
// settings the portal may not give an endpoint; the message says which.
var ErrInvalid = fmt.Errorf("webhook: %w", store.ErrInvalid)

// Settings are an endpoint's settings as the portal gives them.
type Settings struct {
	// ID names the endpoint in its organization; a new random one
	// ("we_...") when empty.
	ID string
	// URL is where events are POSTed: https, unless WithAllowLocal.
	URL string
	// Types are the event types delivered: ["*"] for all (the default,
	// when nil), or types such as "invoice.paid".
	Types []string
	// Restriction narrows the events delivered as a restricted key's
	// (scopes and projects); its zero value narrows nothing.
	Restriction auth.Restriction
	// Secret is the signing secret ("whsec_" and base64); a new random
	// one when empty.
	Secret string
}

// Update changes some of an endpoint's settings: nil fields keep theirs.
type Update struct {
	URL         *string
	Types       []string
	Restriction *auth.Restriction
	// Enabled enables or disables the endpoint. Enabling clears its
	// disabledReason and its run of failures.
	Enabled *bool
}

// Endpoints is the portal's API to an organization's webhook endpoints.
// The endpoints it returns hold no secret: a secret is returned by Create
// and RotateSecret, and by RevealSecret for an admin who asks. It is safe
// for concurrent use.
type Endpoints struct {
	st   Store
	ev   store.Events
	seal sealer
	cfg  config
}

// NewEndpoints returns the portal's API to endpoints kept in st, whose
// secrets are sealed with key (KeySize bytes; see DeriveKey). ev is the
// store's event feed: a new endpoint receives the events after the newest
// one at its creation. It reads the options WithAllowLocal and WithClock.
func NewEndpoints(st Store, ev store.Events, key []byte, opts ...Option) *Endpoints {
	if st == nil || ev == nil {
		panic("webhook: NewEndpoints: nil store or events")
	}
	return &Endpoints{st: st, ev: ev, seal: newSealer(key), cfg: newConfig(opts)}
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// checkURL refuses a URL that no delivery would be made to.
func (c config) checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return invalid("url %q: want an absolute https URL", raw)
	}
	if u.Scheme != "https" && !(c.allowLocal && u.Scheme == "http") {
		return invalid("url %q: only https URLs are allowed", raw)
	}
	if u.User != nil {
		return invalid("url: credentials in the URL are not allowed (sign with the secret instead)")
	}
	if u.Fragment != "" || len(raw) > 2048 || !store.Storable(raw) {
		return invalid("url: no fragment, at most 2048 bytes of valid UTF-8")
	}
	return nil
}

func checkTypes(types []string) error {
	if len(types) == 0 {
		return invalid("types: give [\"*\"] for every event, or a list of types")
	}
	for _, t := range types {
		if t == "*" {
			if len(types) > 1 {
				return invalid("types: \"*\" stands alone")
			}
			continue
		}
		kind, action, ok := strings.Cut(t, ".")
		if !ok || !store.Kind(kind).Valid() || action == "" || strings.ContainsAny(action, ". ") || !store.Storable(t) {
			return invalid("types: %q is not an event type such as invoice.paid", t)
		}
	}
	return nil
}

func checkRestriction(r auth.Restriction) error {
	if err := r.Validate(); err != nil {
		return invalid("%v", err)
	}
	return nil
}

// Create registers an endpoint and returns it with its secret, which is
// shown this once: the endpoint keeps it sealed and never returns it.
// Errors wrap ErrInvalid for bad settings, store.ErrConflict for an id in
// use and store.ErrNotFound for an unknown organization.
func (s *Endpoints) Create(ctx context.Context, orgID string, in Settings) (store.WebhookEndpoint, string, error) {
	if in.ID == "" {
		in.ID = newID("we_")
	}
	if in.Types == nil {
		in.Types = []string{"*"}
	}
	if in.Secret == "" {
		in.Secret = NewSecret()
	}
	if !store.Storable(in.ID) || len(in.ID) > 255 {
		return store.WebhookEndpoint{}, "", invalid("id %q: at most 255 bytes of valid UTF-8", in.ID)
	}
	if !ValidSecret(in.Secret) {
		return store.WebhookEndpoint{}, "", invalid("secret: %v", errSecret)
	}
	if err := cmp.Or(s.cfg.checkURL(in.URL), checkTypes(in.Types), checkRestriction(in.Restriction)); err != nil {
		return store.WebhookEndpoint{}, "", err
	}
	latest, err := s.ev.LatestEvent(ctx, orgID)
	if err != nil {
		return store.WebhookEndpoint{}, "", err
	}
	e := store.WebhookEndpoint{ID: in.ID, OrgID: orgID, URL: in.URL, Types: slices.Clone(in.Types),
		Scopes: retyped[string](in.Restriction.Scopes), ProjectIDs: slices.Clone(in.Restriction.ProjectIDs),
		Enabled: true, Secret: s.seal.seal(orgID, in.ID, in.Secret), Cursor: latest}
	if err := s.st.CreateWebhookEndpoint(ctx, e); err != nil {
		return store.WebhookEndpoint{}, "", err
	}
	got, err := s.Get(ctx, orgID, in.ID)
	return got, in.Secret, err
}

// Get returns one endpoint, without its secret.
func (s *Endpoints) Get(ctx context.Context, orgID, id string) (store.WebhookEndpoint, error) {
	e, err := s.st.GetWebhookEndpoint(ctx, orgID, id)
	return withoutSecrets(e), err
}

// List returns a page of the organization's endpoints, oldest first,
// without their secrets.
func (s *Endpoints) List(ctx context.Context, orgID string, q store.PageRequest) (store.Page[store.WebhookEndpoint], error) {
	p, err := s.st.ListWebhookEndpoints(ctx, orgID, store.WebhookEndpointQuery{PageRequest: q})
	for i := range p.Items {
		p.Items[i] = withoutSecrets(p.Items[i])
	}
	return p, err
}

// Update changes an endpoint's settings (see Update) and returns it. A
// new URL, and disabling, apply to the next attempt; new types or a new
// restriction to the events the dispatcher queues from its next poll
// (WithPollInterval) on.
func (s *Endpoints) Update(ctx context.Context, orgID, id string, u Update) (store.WebhookEndpoint, error) {
	if u.URL != nil {
		if err := s.cfg.checkURL(*u.URL); err != nil {
			return store.WebhookEndpoint{}, err
		}
	}
	if u.Types != nil {
		if err := checkTypes(u.Types); err != nil {
			return store.WebhookEndpoint{}, err
		}
	}
	if u.Restriction != nil {
		if err := checkRestriction(*u.Restriction); err != nil {
			return store.WebhookEndpoint{}, err
		}
	}
	e, err := s.st.UpdateWebhookEndpoint(ctx, orgID, id, func(e *store.WebhookEndpoint) error {
		if u.URL != nil {
			e.URL = *u.URL
		}
		if u.Types != nil {
			e.Types = slices.Clone(u.Types)
		}
		if u.Restriction != nil {
			e.Scopes, e.ProjectIDs = retyped[string](u.Restriction.Scopes), slices.Clone(u.Restriction.ProjectIDs)
		}
		switch {
		case u.Enabled == nil:
		case *u.Enabled:
			e.Enabled, e.DisabledReason, e.FailingSince = true, "", time.Time{}
		case e.Enabled:
			e.Enabled, e.DisabledReason = false, ReasonDisabled
		}
		return nil
	})
	return withoutSecrets(e), err
}

// RotateSecret gives an endpoint a new random secret and returns it, shown
// this once. For RotationOverlap the previous secret still signs too (both
// signatures are sent); a rotation within that time ends the overlap of
// the one before.
func (s *Endpoints) RotateSecret(ctx context.Context, orgID, id string) (string, error) {
	secret := NewSecret()
	if _, err := s.RotateSecretTo(ctx, orgID, id, secret); err != nil {
		return "", err
	}
	return secret, nil
}

// RotateSecretTo rotates an endpoint's secret to one the portal gives (a
// data file's, say), as RotateSecret does: the previous secret still
// signs for RotationOverlap. It reports false, and changes nothing, when
// secret is the endpoint's secret already; ErrInvalid for one that is not
// a secret (ValidSecret).
func (s *Endpoints) RotateSecretTo(ctx context.Context, orgID, id, secret string) (bool, error) {
	if !ValidSecret(secret) {
		return false, invalid("secret: %v", errSecret)
	}
	now := s.cfg.now()
	rotated := false
	_, err := s.st.UpdateWebhookEndpoint(ctx, orgID, id, func(e *store.WebhookEndpoint) error {
		if cur, err := s.seal.open(orgID, id, e.Secret); err == nil && cur == secret {
			return nil
		}
		e.PreviousSecret, e.PreviousSecretUntil = e.Secret, now.Add(RotationOverlap)
		e.Secret = s.seal.seal(orgID, id, secret)
		rotated = true
		return nil
	})
	return rotated, err
}

// Delete deletes an endpoint, its queued deliveries and its log.
func (s *Endpoints) Delete(ctx context.Context, orgID, id string) error {
	return s.st.DeleteWebhookEndpoint(ctx, orgID, id)
}

// Redeliver queues an event again for an endpoint that it was queued for
// (within store.WebhookRetention), to be delivered at once with the next
// attempt number: after the receiver lost it, or the endpoint gave up.
// store.ErrNotFound when the endpoint never had the event.
func (s *Endpoints) Redeliver(ctx context.Context, orgID, id, eventID string) error {
	return s.st.RequeueWebhookJob(ctx, orgID, id, eventID, s.cfg.now())
}

// TestEventType is the type of the event SendTest delivers.
const TestEventType = "webhook.test"

// ErrDisabled is returned (wrapped, and wrapping store.ErrConflict) by
// SendTest for a disabled endpoint: enable it first.
var ErrDisabled = fmt.Errorf("webhook: the endpoint is disabled; enable it to send it events: %w", store.ErrConflict)

// SendTest queues a test delivery to one endpoint and returns its event
// id ("evt_test_" and 24 hex digits). The event is of type TestEventType,
// its data the endpoint itself: {"object": "webhook_endpoint", "id": the
// endpoint's id, "projectId": null, "previousStatus": null}. It is signed,
// attempted, retried and recorded (Deliveries) like any other delivery, by
// the dispatcher within its poll interval, and Redeliver sends it again;
// it is no event of the organization: GET /v1/events and the other
// endpoints never see it. A disabled endpoint gets no test either:
// ErrDisabled. store.ErrNotFound (wrapped) for an endpoint of another
// organization.
func (s *Endpoints) SendTest(ctx context.Context, orgID, id string) (string, error) {
	now := s.cfg.now()
	ev := store.Event{ID: newID("evt_test_"), Type: TestEventType, Kind: "webhook_endpoint", ItemID: id, CreatedAt: now}
	body, err := eventwire.Encode(ev)
	if err != nil {
		return "", err
	}
	job := store.WebhookJob{EventID: ev.ID, EventType: ev.Type, Body: body, Due: now, QueuedAt: now}
	// The job goes in as a page of events that leaves the cursor where
	// it is: ErrConflict while the dispatcher is queueing for the
	// endpoint (its lock held, or the cursor moving), tried again.
	for try := 0; ; try++ {
		e, err := s.st.GetWebhookEndpoint(ctx, orgID, id)
		if err != nil {
			return "", err
		}
		if !e.Enabled {
			return "", ErrDisabled
		}
		err = s.st.EnqueueWebhookJobs(ctx, orgID, id, e.Cursor, e.Cursor, []store.WebhookJob{job})
		if !errors.Is(err, store.ErrConflict) || try == 20 {
			if err != nil {
				return "", err
			}
			return ev.ID, nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(time.Duration(try+1) * 5 * time.Millisecond):
		}
	}
}

// Deliveries returns a page of an endpoint's attempts of the last
// store.WebhookRetention (or since q.Since, when later), newest first, as
// GET /v1/webhook_endpoints/{id}/deliveries serves them; store.ErrNotFound
// (wrapped) for an endpoint of another organization.
func (s *Endpoints) Deliveries(ctx context.Context, orgID, id string, q store.WebhookDeliveryQuery) (store.Page[store.WebhookDelivery], error) {
	if horizon := s.cfg.now().Add(-store.WebhookRetention); q.Since.Before(horizon) {
		q.Since = horizon
	}
	return s.st.ListWebhookDeliveries(ctx, orgID, id, q)
}

// RevealSecret returns an endpoint's current secret ("whsec_...") for the
// portal to show the agency's admin on that answer only: never log it or
// keep it. store.ErrNotFound (wrapped) for an endpoint of another
// organization.
func (s *Endpoints) RevealSecret(ctx context.Context, orgID, id string) (string, error) {
	e, err := s.st.GetWebhookEndpoint(ctx, orgID, id)
	if err != nil {
		return "", err
	}
	return s.seal.open(orgID, id, e.Secret)
}

func withoutSecrets(e store.WebhookEndpoint) store.WebhookEndpoint {
	e.Secret, e.PreviousSecret = nil, nil
	return e
}

// retyped converts scopes between the endpoint's strings and
// auth.Scope, keeping nil apart from empty.
func retyped[U, T ~string](in []T) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = U(v)
	}
	return out
}

// Restriction returns the auth.Restriction of an endpoint's Scopes and
// ProjectIDs: what it receives, as a key restricted so would read.
func Restriction(e store.WebhookEndpoint) auth.Restriction {
	return auth.Restriction{Scopes: retyped[auth.Scope](e.Scopes), ProjectIDs: e.ProjectIDs}
}

// matches reports whether an endpoint receives an event: of one of its
// types, of a kind its scopes read, in its projects.
func matches(e store.WebhookEndpoint, ev store.Event) bool {
	if !slices.Contains(e.Types, "*") && !slices.Contains(e.Types, ev.Type) {
		return false
	}
	r := Restriction(e)
	return r.Allows(auth.ScopeOfKind(ev.Kind)) && store.InProjects(r.ProjectIDs, ev.ProjectID)
}

func newID(prefix string) string {
	b := make([]byte, 12)
	rand.Read(b) // never fails (crypto/rand)
	return prefix + hex.EncodeToString(b)
}
