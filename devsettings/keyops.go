package devsettings

import (
	"net/http"
	"time"

	"github.com/clientstatus/clientstatus/auth"
)

// keySpec is a key to make, as the create form says.
type keySpec struct {
	Name        string
	ExpiresAt   *time.Time
	Restriction auth.Restriction
	Sandbox     bool
}

// create makes the key for the request's organization, by the signed-in
// person.
func (h *handler) create(r *http.Request, s keySpec) (string, auth.Key, error) {
	org := req(r).Account.OrgID
	if s.Sandbox {
		return h.keys.MintSandbox(r.Context(), org, s.Name, s.ExpiresAt)
	}
	return h.keys.MintRestricted(r.Context(), org, s.Name, s.ExpiresAt, s.Restriction)
}

// revoke revokes the organization's key id.
func (h *handler) revoke(r *http.Request, id string) error {
	return h.keys.Revoke(r.Context(), req(r).Account.OrgID, id)
}

// roll makes a key like id, which keeps working until keepUntil.
func (h *handler) roll(r *http.Request, id string, keepUntil time.Time) (string, auth.Key, error) {
	old, err := h.findKey(r, id)
	if err != nil {
		return "", auth.Key{}, err
	}
	secret, k, err := h.create(r, keySpec{Name: old.Name, ExpiresAt: old.ExpiresAt, Restriction: old.Restriction, Sandbox: old.Sandbox})
	if err != nil {
		return "", auth.Key{}, err
	}
	if !keepUntil.After(h.cfg.now()) {
		err = h.revoke(r, id)
	}
	return secret, k, err
}

func createdBy(auth.Key) string { return "" }
func revokedBy(auth.Key) string { return "" }
