package store

import (
	"context"
	"fmt"
	"time"
)

// RequestLogRetention is how long a store keeps the records of requests:
// the contract's 7 days. ListRequestLogs answers no older record, whether
// or not PruneRequestLogs has deleted it yet.
const RequestLogRetention = 7 * 24 * time.Hour

// UsageDays is how many days of usage per key a store keeps and KeyUsage
// reports: today (UTC) and the 29 days before it.
const UsageDays = 30

// RequestRecord is one request the handler answered for an authenticated
// caller, as the request log keeps it. It never holds a query value, a
// key, a token or a body.
type RequestRecord struct {
	// ID is the request id (X-Request-Id). It is not unique: a client
	// may send its own id twice.
	ID    string
	OrgID string
	// KeyID is the public id of the API key used (auth.Principal.KeyID),
	// "" for a credential that is no stored key (a JWT).
	KeyID  string
	Method string
	// Path is the path as sent, relative to where the handler is mounted,
	// without the query: "/v1/invoices/inv_1".
	Path string
	// Route is the matched pattern: "/v1/invoices/{id}".
	Route string
	// Query holds the names of the query parameters, sorted, each once;
	// never their values. Never nil in what a store returns.
	Query  []string
	Status int
	// ErrorCode is the envelope's error.code, "" on success.
	ErrorCode string
	Duration  time.Duration
	// CreatedAt is when the request arrived; stores keep it to the
	// second, as the wire shows it.
	CreatedAt time.Time
}

// Validate reports the first problem that makes rec unfit for a store: an
// empty request id or organization, a text field that is not Storable, a
// status outside 100..599 or a negative duration. The error wraps
// ErrInvalid.
func (rec RequestRecord) Validate() error {
	if rec.ID == "" || rec.OrgID == "" {
		return Invalid("request record", rec.ID, "empty request id or organization id")
	}
	for _, s := range [...]string{rec.ID, rec.OrgID, rec.KeyID, rec.Method, rec.Path, rec.Route, rec.ErrorCode} {
		if !Storable(s) {
			return Invalid("request record", rec.ID, "a field %q holds a NUL or is not valid UTF-8", s)
		}
	}
	for _, s := range rec.Query {
		if !Storable(s) {
			return Invalid("request record", rec.ID, "a query parameter name %q holds a NUL or is not valid UTF-8", s)
		}
	}
	if rec.Status < 100 || rec.Status > 599 || rec.Duration < 0 {
		return Invalid("request record", rec.ID, "status %d or duration %v out of range", rec.Status, rec.Duration)
	}
	return nil
}

// IsError reports whether the request counts as an error in the usage
// per key: any status from 400 on, the caller's mistakes (4xx) as the
// server's (5xx).
func (rec RequestRecord) IsError() bool { return rec.Status >= 400 }

// RequestLogQuery selects an organization's records of the last
// RequestLogRetention, newest first (CreatedAt descending, to the second
// as the wire shows it), then by ID, then the last appended first.
type RequestLogQuery struct {
	PageRequest
	// Status, when not 0, keeps only the records of this status.
	Status int
	// Class, when not 0, keeps only the records whose status is in this
	// class: 4 for 4xx, 5 for 5xx. It combines with Status as both
	// filters would.
	Class int
	// KeyID, when not "", keeps only the records of this key: what a
	// restricted key sees.
	KeyID string
}

// Matches reports whether rec passes q's filters (not the time).
func (q RequestLogQuery) Matches(rec *RequestRecord) bool {
	return (q.Status == 0 || rec.Status == q.Status) &&
		(q.Class == 0 || rec.Status/100 == q.Class) &&
		(q.KeyID == "" || rec.KeyID == q.KeyID)
}

// DayUsage is one key's use on one day (UTC).
type DayUsage struct {
	Day      time.Time // midnight UTC
	Requests int64
	// Errors counts the requests answered with a status from 400 on
	// (RequestRecord.IsError).
	Errors int64
}

// Usage is the use of one API key over the last UsageDays days.
type Usage struct {
	KeyID string
	// Days holds UsageDays entries, one per day, oldest first, today
	// (UTC, on the store's clock) last; a day without requests has zero
	// counts.
	Days []DayUsage
	// LastUsedAt is the time of the key's latest recorded request, to the
	// minute; nil when it made none in the last UsageDays days.
	LastUsedAt *time.Time
}

// RequestLog keeps the request log and the usage per key that statusapi's
// RequestRecorder writes, for GET /v1/request_logs and for the portal,
// which reads both through these methods. A store shared by replicas (as
// bunstore on one database) holds the requests of all of them.
//
// Implementations are safe for concurrent use and honour ctx.
type RequestLog interface {
	// AppendRequests adds records, in one write, and adds each record with
	// a KeyID to that key's usage of its day. Records of an organization
	// that does not exist (deleted since) are dropped; a record that
	// fails Validate fails the whole batch with an error wrapping
	// ErrInvalid, and nothing is written.
	AppendRequests(ctx context.Context, records []RequestRecord) error
	// ListRequestLogs returns a page of the organization's records of the
	// last RequestLogRetention, in the order of RequestLogQuery.
	ListRequestLogs(ctx context.Context, orgID string, q RequestLogQuery) (Page[RequestRecord], error)
	// KeyUsage returns the usage of one of the organization's keys. A key
	// it knows nothing of (unknown, or unused for UsageDays days) has
	// zero counts and a nil LastUsedAt: the key store knows which keys
	// exist.
	KeyUsage(ctx context.Context, orgID, keyID string) (Usage, error)
	// PruneRequestLogs deletes the records older than
	// RequestLogRetention and the usage of days before the last
	// UsageDays, in bounded batches, and returns how many rows it
	// deleted. Replicas may run it at once without waiting for each
	// other.
	PruneRequestLogs(ctx context.Context) (int, error)
}

// UsageTotals is a RequestLog that also reads the usage of all of an
// organization's keys at once, for a usage chart: one read, not one per
// key. memstore.Store and bunstore implement it; it is an interface
// of its own so that a RequestLog of a portal's own stays one.
type UsageTotals interface {
	// OrganizationUsage returns the sums of the usage of the
	// organization's keys (KeyUsage, every key it knows of, revoked ones
	// included) by day, and the latest of their LastUsedAt; its KeyID is
	// "". Requests without a key (a JWT) count in no usage. A sandbox
	// key's requests are its sandbox organization's (auth.SandboxOrgID),
	// so that the live organization's usage is its live keys'.
	OrganizationUsage(ctx context.Context, orgID string) (Usage, error)
}

// ValidateRequests reports the first record of records that fails
// Validate, naming its place in the batch: what AppendRequests checks
// before it writes anything.
func ValidateRequests(records []RequestRecord) error {
	for i, rec := range records {
		if err := rec.Validate(); err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
	}
	return nil
}

// UsageDay returns the UTC day of t, at midnight.
func UsageDay(t time.Time) time.Time {
	return t.UTC().Truncate(24 * time.Hour)
}
