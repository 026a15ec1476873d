package statusapi

import (
	"errors"
	"github.com/clientstatus/clientstatus/internal/pace"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/clientstatus/clientstatus/auth"
)

// RefusedKeyLogInterval is the least time between two log lines about
// the same revoked or expired key: a client that keeps sending one costs
// a line a minute, each with the number of its requests refused since
// the line before (refused_requests).
const RefusedKeyLogInterval = time.Minute

// refusedKeys paces the lines of logRefusedKey, one pacer per key id. It
// holds one entry per known key that was refused, so it is bounded by
// the keys the portal made, not by what clients send. The zero value is
// ready.
type refusedKeys struct {
	byID sync.Map // key id to *pace.Pacer
}

// logRefusedKey logs, at Info, a request refused for a key the key
// resolver knows but refuses (an *auth.KeyError: revoked or expired),
// with the key's public id and organization, never the key, so that the
// operator can tell which client still uses an old key. Other refusals
// (malformed or unknown keys, bad JWTs) name no key and are not logged:
// RequestInfo.Reason has them for an access log.
func (h *handler) logRefusedKey(w http.ResponseWriter, r *http.Request, err error) {
	var ke *auth.KeyError
	if !errors.As(err, &ke) {
		return
	}
	v, ok := h.refused.byID.Load(ke.KeyID)
	if !ok {
		v, _ = h.refused.byID.LoadOrStore(ke.KeyID, new(pace.Pacer))
	}
	n := v.(*pace.Pacer).Tick(h.cfg.now(), RefusedKeyLogInterval)
	if n == 0 {
		return
	}
	reason := "revoked"
	if errors.Is(err, auth.ErrExpired) {
		reason = "expired"
	}
	h.log(r, w, slog.LevelInfo, "statusapi: refused a "+reason+" API key",
		"key_id", ke.KeyID, "org_id", ke.OrgID, "refused_requests", n)
}
