package statusclient

// Expand names what the server embeds in each item of an answer.
type Expand string

// ExpandProject embeds the project of each item that belongs to one (its
// Project field: a milestone's, deliverable's, invoice's, thread's...) in
// the same answer: one request instead of one per project. An item of no
// project, or of one the key may not see (a key without projects:read
// sees none), keeps a nil Project.
const ExpandProject Expand = "project"

// ProjectRef is a project as ExpandProject embeds it in an item.
type ProjectRef struct {
	ID     string        `json:"id"`
	Name   string        `json:"name"`
	Status ProjectStatus `json:"status"`
}

// ItemOptions are the options of a call that returns one item of a
// project (GetMilestone, GetDeliverable, GetInvoice, GetThread...). Those
// calls take at most one; the zero value asks for the item alone.
type ItemOptions struct {
	// Expand, when ExpandProject, fills the item's Project.
	Expand Expand `url:"expand"`
	// IfNoneMatch is the Response.ETag of an earlier answer to the same
	// call: when the item has not changed since, the call returns
	// ErrNotModified instead of it.
	IfNoneMatch string `header:"If-None-Match"`
}
