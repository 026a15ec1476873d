package statusapi

import (
	"errors"
	"log/slog"
	"net/http"
	"sync"

	"github.com/clientstatus/clientstatus/store"
)

// sandboxesSeen are the sandbox organizations a handler has checked for:
// a sandbox key whose sandbox was never seeded (package sandbox's Seed)
// reads empty lists, which nothing else would explain, so the handler
// says so once per organization.
type sandboxesSeen struct{ checked sync.Map } // organization id to struct{}

// checkSandbox warns, the first time it sees the sandbox organization id,
// when the store has no such organization (it was never seeded).
func (h *handler) checkSandbox(w http.ResponseWriter, r *http.Request, id string) {
	orgs, ok := h.st.(store.Organizations)
	if !ok {
		return // a store that cannot tell
	}
	if _, done := h.sandboxes.checked.Load(id); done {
		return
	}
	_, err := orgs.Organization(r.Context(), id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if _, logged := h.sandboxes.checked.LoadOrStore(id, struct{}{}); !logged {
			h.log(r, w, slog.LevelWarn, "statusapi: a sandbox key's sandbox organization was never seeded: its lists are empty; seed it with sandbox.Seed (the standalone server seeds the sandbox of every organization with a sandbox key)", "org", id)
		}
	case err == nil:
		h.sandboxes.checked.Store(id, struct{}{})
	}
	// Another error (the store unavailable): checked again next time.
}
