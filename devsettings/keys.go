package devsettings

import (
	"cmp"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// keyRow is a key as the table shows it.
type keyRow struct {
	auth.Key
	Scopes, Projects []string
	Status           string
	Active           bool
}

// keyForm is what the create form holds, kept when it is refused.
type keyForm struct {
	Name, Expires     string
	Scopes, ProjectID []string
}

type choice struct {
	Value   string
	Checked bool
}

type projectChoice struct {
	ID, Name string
	Checked  bool
}

type keysData struct {
	NewKey   string
	Keys     []keyRow
	Pager    pager
	Form     keyForm
	Scopes   []choice
	Projects []projectChoice
}

// maxProjects bounds the projects offered as a key's projects.
const maxProjects = store.MaxLimit

// modeKeys returns the organization's keys of the request's mode (live or
// sandbox), newest first.
func (h *handler) modeKeys(r *http.Request) ([]auth.Key, error) {
	q := req(r)
	all, err := h.keys.List(r.Context(), q.Account.OrgID)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(k auth.Key) bool { return k.Sandbox != q.Sandbox() }), nil
}

// findKey returns the key id of the organization, in the request's mode;
// errNotFound when there is none.
func (h *handler) findKey(r *http.Request, id string) (auth.Key, error) {
	keys, err := h.modeKeys(r)
	if err != nil {
		return auth.Key{}, err
	}
	for _, k := range keys {
		if k.ID == id {
			return k, nil
		}
	}
	return auth.Key{}, errNotFound
}

// projects returns the first maxProjects projects of the organization of
// the request's mode, offered as a key's projects.
func (h *handler) projects(r *http.Request) ([]store.Project, error) {
	p, err := h.st.ListProjects(r.Context(), req(r).orgID(), store.ProjectQuery{PageRequest: store.PageRequest{Page: 1, Limit: maxProjects}})
	return p.Items, err
}

func (h *handler) keysPage(w http.ResponseWriter, r *http.Request) {
	h.showKeys(w, r, http.StatusOK, "", "", keyForm{})
}

// showKeys renders the keys page with a new key's secret (once), an error
// about the form and the form as sent.
func (h *handler) showKeys(w http.ResponseWriter, r *http.Request, status int, secret, problem string, f keyForm) {
	page, ok := pageOf(r)
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "The page number must be a whole number from 1.")
		return
	}
	keys, err := h.modeKeys(r)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	projects, err := h.projects(r)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	names := make(map[string]string, len(projects))
	for _, p := range projects {
		names[p.ID] = p.Name
	}
	v := h.view(r, "keys", "API keys")
	if problem != "" {
		v.Error = problem
	}
	d := keysData{NewKey: secret, Form: f, Pager: newPager(v.Link("keys"), nil, page, len(keys))}
	now := h.cfg.now()
	from := min((page-1)*pageSize, len(keys))
	for _, k := range keys[from:min(from+pageSize, len(keys))] {
		d.Keys = append(d.Keys, newKeyRow(k, names, now))
	}
	for _, s := range auth.AllScopes {
		d.Scopes = append(d.Scopes, choice{Value: string(s), Checked: slices.Contains(f.Scopes, string(s))})
	}
	for _, p := range projects {
		d.Projects = append(d.Projects, projectChoice{ID: p.ID, Name: p.Name, Checked: slices.Contains(f.ProjectID, p.ID)})
	}
	v.Data = d
	h.render(w, r, status, "keys", v)
}

func newKeyRow(k auth.Key, projectNames map[string]string, now time.Time) keyRow {
	row := keyRow{Key: k, Active: true, Status: "active"}
	for _, s := range k.Scopes {
		row.Scopes = append(row.Scopes, string(s))
	}
	for _, id := range k.ProjectIDs {
		row.Projects = append(row.Projects, cmp.Or(projectNames[id], id))
	}
	switch {
	case k.RevokedAt != nil:
		row.Active, row.Status = false, "revoked "+k.RevokedAt.UTC().Format("2006-01-02 15:04 UTC")
		if k.RevokedBy != "" {
			row.Status += " by " + k.RevokedBy
		}
	case k.ExpiresAt != nil && !now.Before(*k.ExpiresAt):
		row.Active, row.Status = false, "expired"
	case k.RolledTo != "" && k.ExpiresAt != nil:
		row.Status = "rolled, active until " + k.ExpiresAt.UTC().Format("2006-01-02 15:04 UTC")
	case k.ExpiresAt != nil:
		row.Status = "active until " + k.ExpiresAt.UTC().Format("2006-01-02 15:04 UTC")
	}
	return row
}

// parseKeyForm reads the create form. A scope that is not one is 400; a
// project that is not one of the organization's is 404 (errNotFound).
func (h *handler) parseKeyForm(r *http.Request) (keyForm, auth.KeySpec, int, string) {
	f := keyForm{Name: r.PostFormValue("name"), Expires: r.PostFormValue("expires"),
		Scopes: r.PostForm["scope"], ProjectID: r.PostForm["project"]}
	spec := auth.KeySpec{Name: f.Name, Sandbox: req(r).Sandbox()}
	if f.Name == "" || len(f.Name) > 200 {
		return f, spec, http.StatusBadRequest, "Give the key a name of at most 200 characters, so that you know it again."
	}
	for _, s := range f.Scopes {
		if !auth.Scope(s).Valid() {
			return f, spec, http.StatusBadRequest, "Choose scopes from the list."
		}
		spec.Restriction.Scopes = append(spec.Restriction.Scopes, auth.Scope(s))
	}
	if len(f.ProjectID) > 0 {
		projects, err := h.projects(r)
		if err != nil {
			return f, spec, http.StatusServiceUnavailable, "The projects could not be read. Try again in a moment."
		}
		for _, id := range f.ProjectID {
			if !slices.ContainsFunc(projects, func(p store.Project) bool { return p.ID == id }) {
				return f, spec, http.StatusNotFound, "There is no such project in your organization."
			}
			spec.Restriction.ProjectIDs = append(spec.Restriction.ProjectIDs, id)
		}
	}
	if f.Expires != "" {
		day, err := time.Parse(time.DateOnly, f.Expires)
		if err != nil {
			return f, spec, http.StatusBadRequest, "Give the expiry as a date (YYYY-MM-DD), or leave it empty."
		}
		end := day.Add(24 * time.Hour)
		if !end.After(h.cfg.now()) {
			return f, spec, http.StatusBadRequest, "The expiry must be today or later."
		}
		spec.ExpiresAt = &end
	}
	return f, spec, 0, ""
}

func (h *handler) createKey(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		h.fail(w, r, http.StatusBadRequest, "The form could not be read.")
		return
	}
	f, spec, status, problem := h.parseKeyForm(r)
	if status == http.StatusNotFound {
		h.fail(w, r, status, problem)
		return
	}
	if status != 0 {
		h.showKeys(w, r, status, "", problem, f)
		return
	}
	if err := h.prepare(r); err != nil {
		h.failErr(w, r, err)
		return
	}
	secret, k, err := h.create(r, spec)
	if errors.Is(err, auth.ErrInvalidInput) {
		h.showKeys(w, r, http.StatusBadRequest, "", "The key could not be made: "+err.Error(), f)
		return
	}
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	h.changed(r, "key.created", k.ID)
	h.showKeys(w, r, http.StatusOK, secret, "", keyForm{})
}

func (h *handler) revokePage(w http.ResponseWriter, r *http.Request) {
	h.confirmKey(w, r, "revoke", "Revoke a key")
}

func (h *handler) rollPage(w http.ResponseWriter, r *http.Request) {
	k, err := h.findKey(r, r.PathValue("id"))
	if err == nil && k.RolledTo != "" {
		h.fail(w, r, http.StatusConflict, rolledAlready)
		return
	}
	h.confirmKey(w, r, "roll", "Roll a key")
}

// rolledAlready is the refusal to roll a key rolled before (Keys.Roll
// rolls a key once). Its row keeps its Roll button in its grace period,
// as every active key's row has one: the roll page then says this.
const rolledAlready = "This key was rolled already: use the key that replaced it."

// confirmKey shows the confirmation page of an action on an active key.
func (h *handler) confirmKey(w http.ResponseWriter, r *http.Request, page, title string) {
	k, err := h.findKey(r, r.PathValue("id"))
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	if k.RevokedAt != nil {
		h.fail(w, r, http.StatusConflict, "This key is revoked already.")
		return
	}
	v := h.view(r, "keys", title)
	v.Data = k
	h.render(w, r, http.StatusOK, page, v)
}

func (h *handler) revokeKey(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := h.findKey(r, id); err != nil {
		h.failErr(w, r, err)
		return
	}
	if err := h.revoke(r, id); err != nil {
		h.failErr(w, r, err)
		return
	}
	h.changed(r, "key.revoked", id)
	seeOther(w, r, "revoked", "keys")
}

// keeps are the roll form's choices: how long the old key keeps working.
var keeps = map[string]time.Duration{"now": 0, "1h": time.Hour, "24h": 24 * time.Hour, "7d": 7 * 24 * time.Hour}

func (h *handler) rollKey(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	old, err := h.findKey(r, id)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	keep, ok := keeps[r.PostFormValue("keep")]
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "Choose how long the old key keeps working.")
		return
	}
	if old.RevokedAt != nil {
		h.fail(w, r, http.StatusConflict, "This key is revoked already.")
		return
	}
	secret, k, err := h.roll(r, id, h.cfg.now().Add(keep))
	if errors.Is(err, auth.ErrKeyRolled) { // a second click, or one at the same time
		h.fail(w, r, http.StatusConflict, rolledAlready)
		return
	}
	if errors.Is(err, auth.ErrKeyInactive) {
		h.fail(w, r, http.StatusConflict, "This key is revoked or expired: make a new one instead.")
		return
	}
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	h.changed(r, "key.rolled", k.ID)
	h.showKeys(w, r, http.StatusOK, secret, "", keyForm{})
}

// prepare makes sure the sandbox exists before a change in it.
func (h *handler) prepare(r *http.Request) error {
	q := req(r)
	if !q.Sandbox() {
		return nil
	}
	return h.cfg.sandbox(r.Context(), q.Account.OrgID)
}
