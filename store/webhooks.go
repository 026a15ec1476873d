package store

import (
	"context"
	"errors"
	"time"
)

// WebhookRetention is how long a store keeps the attempts of webhook
// deliveries (the contract's 30 days) and the messages they carried.
const WebhookRetention = 30 * 24 * time.Hour

// ErrConflict is returned (wrapped) when a write finds the store not as
// the writer read it: a webhook endpoint created with an id in use, or a
// cursor moved by another replica since it was read.
var ErrConflict = errors.New("conflict")

// WebhookEndpoint is a URL that an organization's events are POSTed to,
// registered by the portal (package webhook). The store keeps it as
// given: the secrets arrive sealed (encrypted) and stay opaque to it.
type WebhookEndpoint struct {
	ID    string
	OrgID string
	URL   string
	// Types are the event types delivered: ["*"] for all.
	Types []string
	// Scopes and ProjectIDs narrow what the endpoint sees exactly as a
	// restricted key's (auth.Restriction): nil for no restriction.
	Scopes     []string
	ProjectIDs []string
	// Enabled is false when the portal disabled the endpoint or
	// deliveries did (DisabledReason says why).
	Enabled        bool
	DisabledReason string
	// Secret is the sealed signing secret; PreviousSecret the sealed
	// one it replaced, still signing until PreviousSecretUntil.
	Secret              []byte
	PreviousSecret      []byte
	PreviousSecretUntil time.Time
	// Cursor is the id of the last event of the organization that the
	// endpoint's deliveries were queued through ("" before any).
	Cursor string
	// FailingSince is when the endpoint's current run of failures began
	// (zero when its last attempt succeeded).
	FailingSince time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// WebhookDelivery is one attempt to deliver an event to an endpoint, as
// GET /v1/webhook_endpoints/{id}/deliveries lists it. It never holds a
// response body.
type WebhookDelivery struct {
	ID          string
	EndpointID  string
	EventID     string
	EventType   string
	Attempt     int // from 1
	AttemptedAt time.Time
	// StatusCode is the answer's HTTP status; 0 when none came.
	StatusCode int
	// Error is why no answer came, or why it counts as none: "timeout",
	// "connection", "tls", "refused_address", "redirect"; "" otherwise.
	Error    string
	Duration time.Duration
}

// WebhookJob is an event queued for an endpoint: its body, signed and
// sent on each attempt, and when the next attempt is due.
type WebhookJob struct {
	OrgID      string
	EndpointID string
	EventID    string
	EventType  string
	Body       []byte
	// Attempts counts the attempts made so far.
	Attempts int
	// Due is when the next attempt may start (on the dispatcher's clock;
	// a job queued without one is due when queued).
	Due time.Time
	// QueuedAt is when the job was queued (the store's time when
	// zero), or queued again by a
	// redelivery).
	QueuedAt time.Time
	// Claim identifies the claim under which the job was handed out
	// (ClaimWebhookJobs); FinishWebhookAttempt changes the job only
	// under the same claim.
	Claim string
	// Endpoint is the job's endpoint as ClaimWebhookJobs read it with
	// the claim, for the attempt; a store that does not read it leaves
	// it zero (no ID), and the dispatcher reads the endpoint itself.
	Endpoint WebhookEndpoint
}

// WebhookOutcome is what an attempt decided for its job and endpoint.
type WebhookOutcome struct {
	// Retry, when set, is when the job is next due; zero: the job is
	// done (delivered, or given up).
	Retry time.Time
	// Success clears the endpoint's FailingSince; otherwise it is set
	// to the attempt's time unless already set.
	Success bool
	// Disable, when not empty, disables the endpoint with this reason.
	Disable string
}

// WebhookEndpointStatus is an endpoint's state: enabled (delivered to)
// or disabled (WebhookEndpoint.Enabled false).
type WebhookEndpointStatus string

// The webhook endpoint states.
const (
	WebhookEndpointEnabled  WebhookEndpointStatus = "enabled"
	WebhookEndpointDisabled WebhookEndpointStatus = "disabled"
)

// WebhookEndpointStatuses lists every webhook endpoint state.
var WebhookEndpointStatuses = []WebhookEndpointStatus{WebhookEndpointEnabled, WebhookEndpointDisabled}

// WebhookEndpointQuery selects an organization's endpoints, oldest first.
type WebhookEndpointQuery struct {
	PageRequest
	Status WebhookEndpointStatus // "" for any
}

// Keeps reports whether q's Status keeps e.
func (q WebhookEndpointQuery) Keeps(e *WebhookEndpoint) bool {
	return q.Status == "" || e.Enabled == (q.Status == WebhookEndpointEnabled)
}

// WebhookDeliveryQuery selects an endpoint's attempts, newest first.
type WebhookDeliveryQuery struct {
	PageRequest
	// Since keeps only attempts at or after it (the handler gives the
	// start of the retention period).
	Since time.Time
}

// WebhookEndpoints keeps an organization's webhook endpoints and the log
// of their deliveries. Implementations are safe for concurrent use;
// every method is scoped by organization and answers ErrNotFound (wrapped)
// for an endpoint of another organization, as for one that does not
// exist.
type WebhookEndpoints interface {
	// CreateWebhookEndpoint stores a new endpoint; ErrConflict when the
	// organization has one with its id, ErrNotFound when there is no
	// such organization.
	CreateWebhookEndpoint(ctx context.Context, e WebhookEndpoint) error
	// GetWebhookEndpoint returns one endpoint.
	GetWebhookEndpoint(ctx context.Context, orgID, id string) (WebhookEndpoint, error)
	// ListWebhookEndpoints returns the organization's endpoints in
	// q.Status (any when ""), oldest first (by CreatedAt, then id).
	ListWebhookEndpoints(ctx context.Context, orgID string, q WebhookEndpointQuery) (Page[WebhookEndpoint], error)
	// UpdateWebhookEndpoint calls fn with the endpoint, under a lock
	// that no other update, enqueue or attempt crosses, and stores what
	// fn leaves (its ID, OrgID, Cursor and CreatedAt kept; UpdatedAt
	// set), unless fn returns an error, which it returns.
	UpdateWebhookEndpoint(ctx context.Context, orgID, id string, fn func(*WebhookEndpoint) error) (WebhookEndpoint, error)
	// DeleteWebhookEndpoint deletes an endpoint, its queued jobs and its
	// deliveries.
	DeleteWebhookEndpoint(ctx context.Context, orgID, id string) error
	// ListWebhookDeliveries returns an endpoint's attempts, newest first.
	ListWebhookDeliveries(ctx context.Context, orgID, endpointID string, q WebhookDeliveryQuery) (Page[WebhookDelivery], error)
}

// WebhookQueue is the work of delivering, shared by every replica of a
// store: each job is handed to one replica at a time, and one that stops
// in the middle loses nothing (its claims expire). Implementations are
// safe for concurrent use, also from several processes on one database.
type WebhookQueue interface {
	// EnabledWebhookEndpoints returns every enabled endpoint of every
	// organization.
	EnabledWebhookEndpoints(ctx context.Context) ([]WebhookEndpoint, error)
	// EnqueueWebhookJobs queues jobs for an endpoint and moves its
	// Cursor from `from` to `to`, at once: ErrConflict, and nothing
	// queued, when its Cursor is no longer `from` (another replica
	// queued them) or it is disabled; ErrNotFound when it is gone. A
	// job for an event already queued for the endpoint is skipped.
	EnqueueWebhookJobs(ctx context.Context, orgID, endpointID, from, to string, jobs []WebhookJob) error
	// ClaimWebhookJobs hands out up to limit jobs due at now (oldest due
	// first) of enabled endpoints, each claimed for this caller until
	// now+claim: no other caller gets it before then, unless the claim
	// is finished. Each job may carry its endpoint (WebhookJob.Endpoint).
	ClaimWebhookJobs(ctx context.Context, now time.Time, limit int, claim time.Duration) ([]WebhookJob, error)
	// FinishWebhookAttempt records the attempt d of job and, when job's
	// claim still holds, applies o to the job and its endpoint.
	FinishWebhookAttempt(ctx context.Context, job WebhookJob, d WebhookDelivery, o WebhookOutcome) error
	// RequeueWebhookJob makes the endpoint's job for an event due at now
	// again, however it ended: a redelivery. ErrNotFound when the
	// endpoint has no job for the event (none queued, or older than
	// WebhookRetention).
	RequeueWebhookJob(ctx context.Context, orgID, endpointID, eventID string, now time.Time) error
}
