// Package eventwire is the one encoding of a store.Event on the wire: the
// event JSON that GET /v1/events serves, that its live stream sends as
// data, and that a webhook POSTs as its body (CONTRACT.md, "Events" and
// "Webhooks"). Every place that writes an event calls Encode (or From),
// so the three never drift apart.
package eventwire

import (
	"encoding/json"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// Event is an event on the wire.
type Event struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	CreatedAt string `json:"createdAt"`
	Data      Data   `json:"data"`
}

// Data is an event's thin data: what changed, for the client to read
// itself. Every event carries the same keys, whatever its kind: a key that
// does not apply is null (projectId of what belongs to no project,
// previousStatus of anything but a change of status, threadId of anything
// but a message).
type Data struct {
	Object         string  `json:"object"`
	ID             string  `json:"id"`
	ProjectID      *string `json:"projectId"`
	PreviousStatus *string `json:"previousStatus"`
	ThreadID       *string `json:"threadId"`
}

// From returns e as it goes on the wire; its time is in UTC to the second
// (RFC 3339), as every time of the API.
func From(e store.Event) Event {
	return Event{
		ID:        e.ID,
		Type:      e.Type,
		CreatedAt: e.CreatedAt.UTC().Truncate(time.Second).Format(time.RFC3339),
		Data: Data{
			Object:         string(e.Kind),
			ID:             e.ItemID,
			ProjectID:      nullable(e.ProjectID),
			PreviousStatus: nullable(e.PreviousStatus),
			ThreadID:       nullable(e.ThreadID),
		},
	}
}

// Encode returns the event JSON of e, without a trailing newline: the
// exact bytes a webhook signs and sends.
func Encode(e store.Event) ([]byte, error) {
	return json.Marshal(From(e))
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
