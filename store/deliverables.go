package store

import "time"

// DeliverableStatus is the state of a deliverable.
type DeliverableStatus string

// The states of a deliverable.
const (
	DeliverablePending  DeliverableStatus = "pending"
	DeliverableInReview DeliverableStatus = "in_review"
	DeliverableApproved DeliverableStatus = "approved"
	DeliverableRejected DeliverableStatus = "rejected"
)

// DeliverableStatuses lists every deliverable state.
var DeliverableStatuses = []DeliverableStatus{DeliverablePending, DeliverableInReview, DeliverableApproved, DeliverableRejected}

// Valid reports whether s is one of DeliverableStatuses.
func (s DeliverableStatus) Valid() bool { return oneOf(s, DeliverableStatuses) }

// KindDeliverable is the kind of a deliverable: a thread may be about one (Ref).
const KindDeliverable Kind = "deliverable"

// Deliverable is something the agency hands over: a design, a build, a
// report. Its file, once attached, is downloaded through a signed link.
type Deliverable struct {
	ID          string
	OrgID       string
	ProjectID   string
	Name        string
	Status      DeliverableStatus
	FileName    *string // nil until a file is attached
	ContentType *string // nil until a file is attached
	SizeBytes   *int64  // nil until a file is attached
	// FileKey says where the file lives in the file source (a path or an
	// object key); "" when no file is attached. Never sent to clients.
	FileKey   string
	CreatedAt time.Time
	UpdatedAt time.Time // set by a store that tracks changes (see Changes)
}

// HasFile reports whether a file is attached.
func (d Deliverable) HasFile() bool { return d.FileKey != "" }

// DeliverableQuery selects deliverables. They are ordered by CreatedAt
// descending, then by ID ascending.
type DeliverableQuery struct {
	PageRequest
	Status DeliverableStatus // "" for any
	ListFilter
}

// Validate reports the first problem that makes d unfit to be stored: an
// empty id, organization id or project id, one or a file key that is not
// Storable, an unknown status or a negative size. Whether the project exists is for the Writer to check.
func (d Deliverable) Validate() error {
	if err := checkOwned("deliverable", d.ID, d.OrgID); err != nil {
		return err
	}
	if d.ProjectID == "" {
		return Invalid("deliverable", d.ID, "empty project id")
	}
	if err := checkStorable("deliverable", d.ID, "project id", d.ProjectID); err != nil {
		return err
	}
	if err := checkStorable("deliverable", d.ID, "file key", d.FileKey); err != nil {
		return err
	}
	if !d.Status.Valid() {
		return Invalid("deliverable", d.ID, "status %q is not one of %v", d.Status, DeliverableStatuses)
	}
	if d.SizeBytes != nil && *d.SizeBytes < 0 {
		return Invalid("deliverable", d.ID, "negative size %d", *d.SizeBytes)
	}
	return nil
}
