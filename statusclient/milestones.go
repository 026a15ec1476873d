package statusclient

import (
	"context"
	"iter"
	"time"
)

// MilestoneStatus is the state of a milestone.
type MilestoneStatus string

// The states of a milestone.
const (
	MilestonePending    MilestoneStatus = "pending"
	MilestoneInProgress MilestoneStatus = "in_progress"
	MilestoneCompleted  MilestoneStatus = "completed"
)

// Milestone is a dated step of a project.
type Milestone struct {
	ID          string          `json:"id"`
	ProjectID   string          `json:"projectId"`
	Name        string          `json:"name"`
	Status      MilestoneStatus `json:"status"`
	DueAt       time.Time       `json:"dueAt"`
	CompletedAt *time.Time      `json:"completedAt"` // nil until completed
	UpdatedAt   time.Time       `json:"updatedAt"`
	// Project is the milestone's project, asked with ExpandProject; nil
	// otherwise, or for a project the key may not see.
	Project *ProjectRef `json:"project,omitempty"`
}

// MilestoneListOptions selects milestones. Zero values leave the server's
// defaults: page 1, 20 a page, any status.
type MilestoneListOptions struct {
	ListOptions
	Status MilestoneStatus `url:"status"`
	// DueBefore, when not zero, keeps only the milestones due before it
	// (exclusive), sent in UTC whole seconds.
	DueBefore time.Time `url:"dueBefore"`
	// UpdatedSince keeps those updated at or after it (see ListOptions).
	UpdatedSince time.Time `url:"updatedSince"`
	// IfNoneMatch makes the call conditional (see ListOptions).
	IfNoneMatch string `header:"If-None-Match"`
	// Expand, when ExpandProject, fills each milestone's Project.
	Expand Expand `url:"expand"`
}

// milestones is the list of a project's milestones; each is got from
// orgMilestones, at /v1/milestones/{id}.
var milestones = nested[Milestone, MilestoneListOptions]{parent: "/projects", leaf: "/milestones"}

// ListMilestones returns one page of a project's milestones, ordered by
// DueAt ascending, then by ID (with UpdatedSince, by UpdatedAt ascending,
// then ID). An unknown project is an *Error with Code CodeNotFound.
func (c *Client) ListMilestones(ctx context.Context, projectID string, opts MilestoneListOptions) ([]Milestone, *Response, error) {
	return milestones.in(projectID).list(ctx, c, opts)
}

// AllMilestones walks every page of ListMilestones and yields each
// milestone once (see ListOptions).
func (c *Client) AllMilestones(ctx context.Context, projectID string, opts MilestoneListOptions) iter.Seq2[Milestone, error] {
	return milestones.in(projectID).all(ctx, c, opts)
}

// GetMilestone returns one milestone, exactly as ListMilestones has it.
// An id of no milestone the key can see is an *Error with Code
// CodeNotFound. opts, when given, may ask for its project
// (ExpandProject).
func (c *Client) GetMilestone(ctx context.Context, id string, opts ...ItemOptions) (Milestone, *Response, error) {
	return orgMilestones.get(ctx, c, id, opts)
}

// OrgMilestoneListOptions selects the organization's milestones of every
// project. Zero values leave the server's defaults: page 1, 20 a page,
// any project and status.
type OrgMilestoneListOptions struct {
	ListOptions
	ProjectID string          `url:"projectId"`
	Status    MilestoneStatus `url:"status"`
	// DueBefore is as MilestoneListOptions'.
	DueBefore time.Time `url:"dueBefore"`
	// UpdatedSince keeps those updated at or after it (see ListOptions).
	UpdatedSince time.Time `url:"updatedSince"`
	// IfNoneMatch makes the call conditional (see ListOptions).
	IfNoneMatch string `header:"If-None-Match"`
	// Expand, when ExpandProject, fills each milestone's Project.
	Expand Expand `url:"expand"`
}

var orgMilestones = collection[Milestone, OrgMilestoneListOptions]{path: "/milestones"}

// ListOrgMilestones returns one page of the organization's milestones of
// every project, ordered by DueAt ascending, then ProjectID, then ID
// (with UpdatedSince, by UpdatedAt ascending, then ID): a sync in pages,
// not a request per project.
func (c *Client) ListOrgMilestones(ctx context.Context, opts OrgMilestoneListOptions) ([]Milestone, *Response, error) {
	return orgMilestones.list(ctx, c, opts)
}

// AllOrgMilestones walks every page of ListOrgMilestones as AllMilestones
// walks ListMilestones.
func (c *Client) AllOrgMilestones(ctx context.Context, opts OrgMilestoneListOptions) iter.Seq2[Milestone, error] {
	return orgMilestones.all(ctx, c, opts)
}
