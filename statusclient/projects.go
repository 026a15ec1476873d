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
	// UpdatedSince, when not zero, keeps only the projects updated at
	// or after it, ordered by UpdatedAt ascending, then ID: an inclusive
	// bound, sent in UTC whole seconds (see "Changes" in the package
	// documentation).
	UpdatedSince time.Time `url:"updatedSince"`
	// IfNoneMatch is the Response.ETag of an earlier answer to the same
	// call: when the page has not changed since, the call returns
	// ErrNotModified instead of it. The All... iterators ignore it.
	IfNoneMatch string `header:"If-None-Match"`
}

// projects are the routes of /v1/projects.
var projects = collection[Project, ProjectListOptions]{path: "/projects"}

// ListProjects returns one page of the organization's projects, ordered by
// StartedAt descending (projects not started last), then by ID; with
// UpdatedSince, by UpdatedAt ascending, then ID.
func (c *Client) ListProjects(ctx context.Context, opts ProjectListOptions) ([]Project, *Response, error) {
	return projects.list(ctx, c, opts)
}

// AllProjects walks every page of ListProjects from opts.Page, MaxLimit
// items a page unless opts.Limit says otherwise, and yields each project
// once. An error is yielded once and ends the walk (Error.Response holds
// its Response); breaking out of the loop stops it without further
// requests. The pages' Responses are not yielded: to watch the rate budget
// page by page, call ListProjects and follow Response.NextPage.
func (c *Client) AllProjects(ctx context.Context, opts ProjectListOptions) iter.Seq2[Project, error] {
	return projects.all(ctx, c, opts)
}

// GetProject returns one project. An id of no project of the organization
// (including another organization's) is an *Error with Code CodeNotFound.
func (c *Client) GetProject(ctx context.Context, id string) (Project, *Response, error) {
	return projects.get(ctx, c, id, nil)
}
