package statusclient

import "time"

// Event is one client-visible change (CONTRACT.md, "Events"), as a webhook
// delivers it: thin data naming what changed, for the client to read the
// item itself.
type Event struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"` // "invoice.paid", "project.created", ...
	CreatedAt time.Time `json:"createdAt"`
	Data      EventData `json:"data"`
}

// EventData names the item an Event is about.
type EventData struct {
	Object string `json:"object"` // "invoice", "project", ...
	ID     string `json:"id"`
	// ProjectID is nil for what belongs to no project.
	ProjectID *string `json:"projectId"`
	// PreviousStatus is set on a change of status ("invoice.paid").
	PreviousStatus *string `json:"previousStatus"`
	// ThreadID is a message's thread; nil for other kinds.
	ThreadID *string `json:"threadId"`
}
