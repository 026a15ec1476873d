package store

import "time"

// ProjectStatus is the state of a project.
type ProjectStatus string

// The states of a project.
const (
	ProjectPlanned    ProjectStatus = "planned"
	ProjectInProgress ProjectStatus = "in_progress"
	ProjectOnHold     ProjectStatus = "on_hold"
	ProjectCompleted  ProjectStatus = "completed"
	ProjectCancelled  ProjectStatus = "cancelled"
)

// ProjectStatuses lists every project state, in lifecycle order.
var ProjectStatuses = []ProjectStatus{ProjectPlanned, ProjectInProgress, ProjectOnHold, ProjectCompleted, ProjectCancelled}

// Valid reports whether s is one of ProjectStatuses.
func (s ProjectStatus) Valid() bool { return oneOf(s, ProjectStatuses) }

// KindProject is the kind of a project.
const KindProject Kind = "project"

// Project is a piece of work the agency does for an organization.
type Project struct {
	ID        string
	OrgID     string
	Name      string
	Status    ProjectStatus
	StartedAt *time.Time // nil until started
	DueAt     *time.Time // nil when open-ended
	UpdatedAt time.Time  // set by a store that tracks changes (see Changes)
}

// ProjectQuery selects projects. They are ordered by StartedAt descending
// (projects not started last), then by ID ascending.
type ProjectQuery struct {
	PageRequest
	Status ProjectStatus // "" for any
	ListFilter
}

func oneOf[S comparable](s S, all []S) bool {
	for _, v := range all {
		if v == s {
			return true
		}
	}
	return false
}

// Validate reports the first problem that makes p unfit to be stored: an
// empty id or organization id, one that is not Storable, or an unknown
// status. Whether the
// organization exists is for the Writer to check.
func (p Project) Validate() error {
	if err := checkOwned("project", p.ID, p.OrgID); err != nil {
		return err
	}
	if !p.Status.Valid() {
		return Invalid("project", p.ID, "status %q is not one of %v", p.Status, ProjectStatuses)
	}
	return nil
}
