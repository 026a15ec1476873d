package statusapi

import (
	"log/slog"
	"net/http"
	"sync"

	"github.com/clientstatus/clientstatus/store"
)

// sandboxesSeen are the sandbox organizations a handler has checked: a
// sandbox key whose sandbox was never seeded (package sandbox's Seed)
// reads empty lists, which nothing else would explain, so the handler
// says so once per organization.
type sandboxesSeen struct{ checked sync.Map } // organization id to struct{}

// checkSandbox warns, the first time it sees the sandbox organization id,
// when it has no project: a seeded sandbox always has some.
func (h *handler) checkSandbox(w http.ResponseWriter, r *http.Request, id string) {
	if _, done := h.sandboxes.checked.Load(id); done {
		return
	}
	p, err := h.st.ListProjects(r.Context(), id, store.ProjectQuery{PageRequest: store.PageRequest{Page: 1, Limit: 1}})
	if err != nil {
		return // the store unavailable: checked again next time
	}
	if _, logged := h.sandboxes.checked.LoadOrStore(id, struct{}{}); !logged && p.Total == 0 {
		h.log(r, w, slog.LevelWarn, "statusapi: a sandbox key's sandbox organization is empty (never seeded?): its lists are empty; seed it with sandbox.Seed (the standalone server seeds the sandbox of every organization with a sandbox key)", "org", id)
	}
}
