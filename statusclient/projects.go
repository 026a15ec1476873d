package statusclient

import (
	"context"
	"iter"
	"time"
)

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

// Project is a piece of work the agency does for the key's organization.
type Project struct {
	ID        string        `json:"id"`
	Name      string        `json:"name"`
	Status    ProjectStatus `json:"status"`
	StartedAt *time.Time    `json:"startedAt"` // nil until started
	DueAt     *time.Time    `json:"dueAt"`     // nil when open-ended
	UpdatedAt time.Time     `json:"updatedAt"`
}

// ProjectListOptions selects projects. Zero values leave the server's
// defaults: page 1, 20 a page, any status.
type ProjectListOptions struct {
	ListOptions
	Status ProjectStatus `url:"status"`
	// DueBefore, when not zero, keeps only the projects due before it
	// (exclusive), sent in UTC whole seconds; a project with no DueAt
	// never matches.
	DueBefore time.Time `url:"dueBefore"`
	// UpdatedSince keeps those updated at or after it (see ListOptions).
	UpdatedSince time.Time `url:"updatedSince"`
	// IfNoneMatch makes the call conditional (see ListOptions).
	IfNoneMatch string `header:"If-None-Match"`
}

var projects = collection[Project, ProjectListOptions]{path: "/projects"}

// ListProjects returns one page of the organization's projects, ordered by
// StartedAt descending (projects not started last), then by ID; with
// UpdatedSince, by UpdatedAt ascending, then ID.
func (c *Client) ListProjects(ctx context.Context, opts ProjectListOptions) ([]Project, *Response, error) {
	return projects.list(ctx, c, opts)
}

// AllProjects walks every page of ListProjects and yields each project once
// (see ListOptions).
func (c *Client) AllProjects(ctx context.Context, opts ProjectListOptions) iter.Seq2[Project, error] {
	return projects.all(ctx, c, opts)
}

// GetProject returns one project. An id of no project of the organization
// (including another organization's) is an *Error with Code CodeNotFound.
func (c *Client) GetProject(ctx context.Context, id string) (Project, *Response, error) {
	return projects.get(ctx, c, id, nil)
}
