package main

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/devsettings"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/sandbox"
	"github.com/clientstatus/clientstatus/store"
)

// settingsPath is where the developer settings are served, behind the
// demo sign-in at settingsPath+"/sign-in".
const settingsPath = "/settings"

// demoSession is the cookie of the demo sign-in: organization and role,
// signed with a key of the process's own.
const demoSession = "clientstatus_demo_session"

// demoSettings is the developer settings (package devsettings) behind a
// demo sign-in where anyone who reaches the server signs in as anyone:
// served only while the server listens on loopback.
type demoSettings struct {
	orgs  []store.Organization // offered at sign-in
	st    store.Organizations
	key   []byte // signs the session cookie
	pages http.Handler
	cop   *http.CrossOriginProtection
}

// newDemoSettings returns the settings pages of the server's parts, with
// the sandbox seeded (and driven by sim, when not nil) at its first use.
func newDemoSettings(keys *auth.Keys, b backend, wh webhooks, lim ratelimit.Limiter, sim *sandbox.Simulator, orgs []store.Organization, log *slog.Logger) *demoSettings {
	st := settingsStore{Organizations: b.keys, portalStore: b.store}
	d := &demoSettings{orgs: orgs, st: st, key: make([]byte, 32), cop: http.NewCrossOriginProtection()}
	rand.Read(d.key) // never fails (crypto/rand): sessions end with the process
	prepare := func(ctx context.Context, liveOrgID string) error {
		o, err := st.Organization(ctx, liveOrgID)
		if err != nil {
			return err
		}
		return seedSandbox(ctx, st, o, sim)
	}
	d.pages = http.StripPrefix(settingsPath, devsettings.New(keys, st, d.account, devsettings.WithRequestLog(st),
		devsettings.WithLimiter(lim), devsettings.WithSandbox(prepare), devsettings.WithLogger(log), devsettings.WithWebhooks(wh.eps)))
	return d
}

// settingsStore is the store as the settings read it: its organizations
// through the key store.
type settingsStore struct {
	store.Organizations
	portalStore
}

// loopback reports whether addr is a loopback address, where the demo
// sign-in may be served.
func loopback(addr net.Addr) bool {
	ta, ok := addr.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

func (d *demoSettings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == settingsPath+"/sign-in" {
		d.signIn(w, r)
		return
	}
	if _, ok := d.account(r); !ok {
		http.Redirect(w, r, settingsPath+"/sign-in", http.StatusSeeOther)
		return
	}
	d.pages.ServeHTTP(w, r)
}

// account reads the signed session cookie.
func (d *demoSettings) account(r *http.Request) (devsettings.Account, bool) {
	c, err := r.Cookie(demoSession)
	if err != nil {
		return devsettings.Account{}, false
	}
	payload, sig, ok := strings.Cut(c.Value, ".")
	if !ok || !hmac.Equal([]byte(sig), []byte(d.sign(payload))) {
		return devsettings.Account{}, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return devsettings.Account{}, false
	}
	org, role, _ := strings.Cut(string(raw), "\x00")
	return devsettings.Account{OrgID: org, Name: "Demo " + role, Admin: role == "admin"}, org != ""
}

func (d *demoSettings) sign(payload string) string {
	m := hmac.New(sha256.New, d.key)
	m.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

var signInPage = template.Must(template.New("sign-in").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · Developer settings (demo)</title></head>
<body><main>
<h1>Sign in to the developer settings</h1>
<p>A demo sign-in: anyone who can reach this server may sign in as anyone, which is why it is served only on loopback. A portal puts its own sign-in here.</p>
{{with .Error}}<p role="alert">{{.}}</p>{{end}}
<form method="post" action="{{.Action}}">
<p><label for="org">Organization</label>
<select id="org" name="org">{{range .Orgs}}<option value="{{.ID}}">{{.Name}} ({{.ID}})</option>{{end}}</select></p>
<p><label for="role">Role</label>
<select id="role" name="role"><option value="admin">admin</option><option value="member">member</option></select></p>
<p><button type="submit">Sign in</button></p>
</form>
</main></body></html>`))

func (d *demoSettings) signIn(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; form-action 'self'; frame-ancestors 'self'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	status, problem := http.StatusOK, ""
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodPost:
		if err := d.cop.Check(r); err != nil {
			http.Error(w, "sign-in from another site refused", http.StatusForbidden)
			return
		}
		org, role := r.PostFormValue("org"), r.PostFormValue("role")
		_, err := d.st.Organization(r.Context(), org)
		switch {
		case role != "admin" && role != "member":
			status, problem = http.StatusBadRequest, "Choose the role admin or member."
		case errors.Is(err, store.ErrNotFound) || org == "" || auth.IsSandboxOrgID(org):
			status, problem = http.StatusBadRequest, "Choose an organization from the list."
		case err != nil:
			status, problem = http.StatusServiceUnavailable, "The store did not answer; try again."
		default:
			payload := base64.RawURLEncoding.EncodeToString([]byte(org + "\x00" + role))
			http.SetCookie(w, &http.Cookie{Name: demoSession, Value: payload + "." + d.sign(payload), Path: settingsPath,
				HttpOnly: true, SameSite: http.SameSiteLaxMode, Expires: time.Now().Add(12 * time.Hour)})
			http.Redirect(w, r, settingsPath+"/keys", http.StatusSeeOther)
			return
		}
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = signInPage.Execute(w, struct {
		Action, Error string
		Orgs          []store.Organization
	}{settingsPath + "/sign-in", problem, d.orgs})
}
