package devsettings

import (
	"context"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// Account is who is signed in to the portal, as its account function
// says.
type Account struct {
	// OrgID is the organization whose settings the pages show.
	OrgID string
	// Name is the person's display name, recorded as who made a change.
	Name string
	// Admin may change things; a member sees every page without its
	// forms, and a change a member sends is refused (403).
	Admin bool
}

// Change is one change made through the pages, as WithChangeHook is told
// of it and the logger records it. It never holds a secret.
type Change struct {
	At time.Time
	// OrgID is the live organization; Sandbox says the change was made
	// in its sandbox.
	OrgID   string
	Sandbox bool
	// By is the Account's Name.
	By string
	// Action is what was done: "key.created", "key.revoked",
	// "key.rolled", "webhook_endpoint.created",
	// "webhook_endpoint.disabled", "webhook_endpoint.enabled",
	// "webhook_endpoint.secret_rotated",
	// "webhook_endpoint.secret_revealed", "webhook_endpoint.test_sent".
	Action string
	// Target is the id of the key or endpoint.
	Target string
}

// Store is what the pages read of the portal's store: the organization
// (its plan, on the Usage page) and its projects (a key's projects).
// memstore.Store and bunstore's Store implement it.
type Store interface {
	store.Organizations
	ListProjects(ctx context.Context, orgID string, q store.ProjectQuery) (store.Page[store.Project], error)
}

// pageSize is how many rows a page of any list shows.
const pageSize = 25

type handler struct {
	keys    *auth.Keys
	st      Store
	account func(*http.Request) (Account, bool)
	cfg     config
	mux     *http.ServeMux
	cop     *http.CrossOriginProtection
	pages   map[string]*template.Template
}

// New returns the developer settings' handler, serving the pages of the
// organization that account names for each request (false: nobody is
// signed in, 401). It panics when keys, st or account is nil, and with an
// *option.Error when an option is given a value no default stands for.
func New(keys *auth.Keys, st Store, account func(*http.Request) (Account, bool), opts ...Option) http.Handler {
	if keys == nil || st == nil || account == nil {
		panic("devsettings: New needs keys, a store and an account function")
	}
	c := newConfig(opts)
	if err := c.Err(); err != nil {
		panic(err)
	}
	h := &handler{keys: keys, st: st, account: account, cfg: c, mux: http.NewServeMux(),
		cop: http.NewCrossOriginProtection(), pages: parsePages()}
	h.routes()
	return h
}

// routes registers every page and form, once per mode (live, and the
// sandbox when WithSandbox).
func (h *handler) routes() {
	modes := []string{""}
	if h.cfg.sandbox != nil {
		modes = append(modes, sandboxPath)
	}
	for _, m := range modes {
		h.mux.HandleFunc("GET "+m+"/{$}", h.home)
		h.mux.HandleFunc("GET "+m+"/keys", h.keysPage)
		h.mux.HandleFunc("POST "+m+"/keys", h.createKey)
		h.mux.HandleFunc("GET "+m+"/keys/{id}/revoke", h.revokePage)
		h.mux.HandleFunc("POST "+m+"/keys/{id}/revoke", h.revokeKey)
		h.mux.HandleFunc("GET "+m+"/keys/{id}/roll", h.rollPage)
		h.mux.HandleFunc("POST "+m+"/keys/{id}/roll", h.rollKey)
		h.mux.HandleFunc("GET "+m+"/usage", h.usagePage)
		if h.cfg.requests != nil {
			h.mux.HandleFunc("GET "+m+"/requests", h.requestsPage)
		}
		if h.cfg.webhooks != nil {
			h.webhookRoutes(m)
		}
	}
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.fail(w, r, http.StatusNotFound, "There is no such page.")
	})
}

// sandboxPath starts the path of every page of the sandbox.
const sandboxPath = "/sandbox"

// request is what a page knows of its request: who, where, and the
// nonce of its script.
type request struct {
	Account Account
	// Base is the path the handler is mounted at, without a trailing
	// slash; Mode is "" or sandboxPath.
	Base, Mode string
	Nonce      string
}

// Sandbox reports whether the request is for the sandbox.
func (q *request) Sandbox() bool { return q.Mode != "" }

// orgID is the organization whose data the mode shows: the live one or
// its sandbox.
func (q *request) orgID() string {
	if q.Sandbox() {
		return auth.SandboxOrgID(q.Account.OrgID)
	}
	return q.Account.OrgID
}

type requestKey struct{}

// req returns what ServeHTTP put in r's context.
func req(r *http.Request) *request { return r.Context().Value(requestKey{}).(*request) }

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	nonce := newNonce()
	securityHeaders(w.Header(), nonce, h.cfg.ancestors)
	base, rel := h.split(r)
	q := &request{Base: base, Nonce: nonce}
	if h.cfg.sandbox != nil && (rel == sandboxPath || strings.HasPrefix(rel, sandboxPath+"/")) {
		q.Mode = sandboxPath
	}
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	u.Path, u.RawPath = rel, rel
	if p, err := url.PathUnescape(rel); err == nil {
		u.Path = p
	}
	r2.URL = &u
	r2 = r2.WithContext(context.WithValue(r.Context(), requestKey{}, q))
	acct, ok := h.account(r)
	if !ok || acct.OrgID == "" {
		h.fail(w, r2, http.StatusUnauthorized, "Sign in to the portal to see its developer settings.")
		return
	}
	q.Account = acct
	if err := h.cop.Check(r); err != nil {
		h.fail(w, r2, http.StatusForbidden, "This change came from another site, so it was refused. Make it from this page.")
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead && !acct.Admin {
		h.fail(w, r2, http.StatusForbidden, "Only an admin of your organization may change this.")
		return
	}
	r2.Body = http.MaxBytesReader(w, r2.Body, maxForm)
	h.mux.ServeHTTP(w, r2)
}

// maxForm bounds a form's body: the largest, a key with every scope and
// a hundred projects, is a few kilobytes.
const maxForm = 64 << 10

// split returns the path the handler is mounted at and the request's
// path below it, escaped as sent: WithPrefix's, or the part of the path
// as sent that an http.StripPrefix in front removed.
func (h *handler) split(r *http.Request) (base, rel string) {
	rel = r.URL.EscapedPath()
	if h.cfg.prefix != "" {
		if cut, ok := strings.CutPrefix(rel, h.cfg.prefix); ok && (cut == "" || cut[0] == '/') {
			rel = cut
		}
		return h.cfg.prefix, ensureSlash(rel)
	}
	sent := r.RequestURI
	if i := strings.IndexAny(sent, "?#"); i >= 0 {
		sent = sent[:i]
	}
	if b, ok := strings.CutSuffix(sent, rel); ok && strings.HasPrefix(b, "/") {
		base = b
	}
	return strings.TrimSuffix(base, "/"), ensureSlash(rel)
}

func ensureSlash(p string) string {
	if !strings.HasPrefix(p, "/") {
		return "/" + p
	}
	return p
}

// home sends / to the API keys.
func (h *handler) home(w http.ResponseWriter, r *http.Request) {
	q := req(r)
	http.Redirect(w, r, q.Base+q.Mode+"/keys", http.StatusSeeOther)
}

// changed reports a change to the hook and the log.
func (h *handler) changed(r *http.Request, action, target string) {
	q := req(r)
	c := Change{At: h.cfg.now().UTC(), OrgID: q.Account.OrgID, Sandbox: q.Sandbox(), By: q.Account.Name, Action: action, Target: target}
	h.cfg.logger.LogAttrs(r.Context(), slog.LevelInfo, "devsettings: change",
		slog.String("org", c.OrgID), slog.Bool("sandbox", c.Sandbox), slog.String("by", c.By),
		slog.String("action", c.Action), slog.String("target", c.Target))
	if h.cfg.onChange != nil {
		h.cfg.onChange(r.Context(), c)
	}
}

// errNotFound is an id the organization has nothing of.
var errNotFound = errors.New("not found")

// failErr answers err: 404 for what the organization has no such thing
// of, 503 for a store that does not answer, else 500, logged.
func (h *handler) failErr(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, errNotFound), errors.Is(err, store.ErrNotFound), errors.Is(err, auth.ErrKeyNotFound):
		h.fail(w, r, http.StatusNotFound, "There is no such item in your organization.")
	case errors.Is(err, store.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		h.cfg.logger.Warn("devsettings: a backend did not answer", "err", err)
		h.fail(w, r, http.StatusServiceUnavailable, "A service the settings need did not answer. Try again in a moment.")
	default:
		h.cfg.logger.Error("devsettings: failed", "path", r.URL.Path, "err", err)
		h.fail(w, r, http.StatusInternalServerError, "Something went wrong. Try again in a moment.")
	}
}
