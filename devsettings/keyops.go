package devsettings

import (
	"net/http"
	"time"

	"github.com/clientstatus/clientstatus/auth"
)

// create makes the key of spec for the request's organization, by the
// signed-in person.
func (h *handler) create(r *http.Request, spec auth.KeySpec) (string, auth.Key, error) {
	q := req(r)
	spec.CreatedBy = q.Account.Name
	return h.keys.Create(r.Context(), q.Account.OrgID, spec)
}

// revoke revokes the organization's key id, by the signed-in person.
func (h *handler) revoke(r *http.Request, id string) error {
	q := req(r)
	return h.keys.RevokeBy(r.Context(), q.Account.OrgID, id, q.Account.Name)
}

// roll makes a key like id, which keeps working until keepUntil (revoked
// at once when that is not in the future).
func (h *handler) roll(r *http.Request, id string, keepUntil time.Time) (string, auth.Key, error) {
	q := req(r)
	return h.keys.Roll(r.Context(), q.Account.OrgID, id, keepUntil, q.Account.Name)
}
