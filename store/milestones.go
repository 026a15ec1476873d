package store

import "time"

// MilestoneStatus is the state of a milestone.
type MilestoneStatus string

// The states of a milestone.
const (
	MilestonePending    MilestoneStatus = "pending"
	MilestoneInProgress MilestoneStatus = "in_progress"
	MilestoneCompleted  MilestoneStatus = "completed"
)

// MilestoneStatuses lists every milestone state, in lifecycle order.
var MilestoneStatuses = []MilestoneStatus{MilestonePending, MilestoneInProgress, MilestoneCompleted}

// Valid reports whether s is one of MilestoneStatuses.
func (s MilestoneStatus) Valid() bool { return oneOf(s, MilestoneStatuses) }

// KindMilestone is the kind of a milestone: a thread may be about one (Ref).
const KindMilestone Kind = "milestone"

// Milestone is a dated step of a project.
type Milestone struct {
	ID          string
	OrgID       string
	ProjectID   string
	Name        string
	Status      MilestoneStatus
	DueAt       time.Time
	CompletedAt *time.Time // nil until completed
	UpdatedAt   time.Time  // set by a store that tracks changes (see Changes)
}

// MilestoneQuery selects a project's milestones. They are ordered by DueAt
// ascending, then by ID ascending.
type MilestoneQuery struct {
	PageRequest
	Status MilestoneStatus // "" for any
	ListFilter
}

// Validate reports the first problem that makes m unfit to be stored: an
// empty id, organization id or project id, one that is not Storable, or
// an unknown status. Whether
// the project exists is for the Writer to check.
func (m Milestone) Validate() error {
	if err := checkOwned("milestone", m.ID, m.OrgID); err != nil {
		return err
	}
	if m.ProjectID == "" {
		return Invalid("milestone", m.ID, "empty project id")
	}
	if err := checkStorable("milestone", m.ID, "project id", m.ProjectID); err != nil {
		return err
	}
	if !m.Status.Valid() {
		return Invalid("milestone", m.ID, "status %q is not one of %v", m.Status, MilestoneStatuses)
	}
	return nil
}

// AllMilestoneQuery selects the organization's milestones of every
// project. They are ordered by DueAt ascending, then ProjectID, then ID;
// with UpdatedSince, by UpdatedAt ascending, then ID.
type AllMilestoneQuery struct {
	PageRequest
	Status MilestoneStatus // "" for any
	ListFilter
}
