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
// itself. Every event of a kind carries the same keys: object, id,
// projectId (null for what belongs to no project) and previousStatus (null
// unless the event is a change of status, typed by the new status); a
// message's also threadId, so that each kind's schema in the OpenAPI
// document holds.
type Data struct {
	Object         string  `json:"object"`
	ID             string  `json:"id"`
	ProjectID      *string `json:"projectId"`
	ThreadID       *string `json:"threadId,omitempty"` // on every message's, on no other kind's
	PreviousStatus *string `json:"previousStatus"`
}

// From returns e as it goes on the wire; its time is in UTC to the second
// (RFC 3339), as every time of the API.
func From(e store.Event) Event {
	out := Event{
		ID:        e.ID,
		Type:      e.Type,
		CreatedAt: e.CreatedAt.UTC().Truncate(time.Second).Format(time.RFC3339),
		Data: Data{
			Object:         string(e.Kind),
			ID:             e.ItemID,
			ProjectID:      nullable(e.ProjectID),
			PreviousStatus: nullable(e.PreviousStatus),
		},
	}
	if e.Kind == store.KindMessage {
		thread := e.ThreadID
		out.Data.ThreadID = &thread
	}
	return out
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
