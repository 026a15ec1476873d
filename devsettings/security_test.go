package devsettings_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/devsettings"
)

// pages are every page the handler serves to a signed-in person.
var pages = []string{"/keys", "/webhooks", "/requests", "/usage",
	"/sandbox/keys", "/sandbox/webhooks", "/sandbox/requests", "/sandbox/usage"}

func TestHeadersOnEveryAnswer(t *testing.T) {
	f := newFixture(t)
	nonce := regexp.MustCompile(`<script nonce="([^"]+)">`)
	for _, p := range append(pages, "/nowhere") {
		for _, as := range []who{adminA, memberA, nobody} {
			t.Run(p+"/"+as.role, func(t *testing.T) {
				is := is.New(t)
				res := f.get(as, p)
				h := res.Header()
				csp := h.Get("Content-Security-Policy")
				is.True(strings.Contains(csp, "frame-ancestors 'self'"))      // framed by its own origin only
				is.True(!strings.Contains(csp, "unsafe-inline"))              // no inline script but the nonced one
				is.True(!strings.Contains(csp, "unsafe-eval"))                // and no eval
				is.True(strings.Contains(csp, "default-src 'none'"))          // nothing loads from anywhere
				is.Equal(h.Get("X-Content-Type-Options"), "nosniff")          // the contract's headers
				is.Equal(h.Get("Referrer-Policy"), "same-origin")             //
				is.Equal(h.Get("Cache-Control"), "no-store")                  //
				is.Equal(h.Get("Content-Type"), "text/html; charset=utf-8")   //
				m := nonce.FindStringSubmatch(res.Body.String())              //
				is.True(m != nil)                                             // the page's one script carries a nonce
				is.True(strings.Contains(csp, "script-src 'nonce-"+m[1]+"'")) // and the policy runs only it
			})
		}
	}
}

func TestNonceDiffersPerAnswer(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	a, b := f.get(adminA, "/keys").Header().Get("Content-Security-Policy"), f.get(adminA, "/keys").Header().Get("Content-Security-Policy")
	is.True(a != b) // a fresh nonce each time
}

func TestFrameAncestorsWidened(t *testing.T) {
	is := is.New(t)
	f := newFixture(t, devsettings.WithFrameAncestors("https://portal.example.com"))
	csp := f.get(adminA, "/keys").Header().Get("Content-Security-Policy")
	is.True(strings.Contains(csp, "frame-ancestors 'self' https://portal.example.com")) // the portal may frame it
	for _, bad := range []string{"portal.example.com", "https://x.example/path", "https://a.example; script-src *", "'unsafe-inline'"} {
		err := devsettings.Validate(devsettings.WithFrameAncestors(bad))
		is.True(err != nil) // not an origin: refused
	}
	is.NoErr(devsettings.Validate(devsettings.WithFrameAncestors())) // none: 'self' alone
}

func TestNoAccountIs401(t *testing.T) {
	f := newFixture(t)
	for _, p := range pages {
		is := is.New(t)
		res := f.get(nobody, p)
		is.Equal(res.Code, http.StatusUnauthorized)                 // nobody signed in
		is.True(!strings.Contains(res.Body.String(), "Create key")) // and nothing of the pages
	}
	is := is.New(t)
	res := f.post(nobody, "/keys", url.Values{"name": {"x"}})
	is.Equal(res.Code, http.StatusUnauthorized) // nor a change
	keys, _ := f.keys.List(t.Context(), "org_a")
	is.Equal(len(keys), 0) // nothing made
}

// changes are a form of every kind, as an admin of A would send it; the
// paths name A's key and endpoint, filled in by forms.
func changes(keyID, endpointID string) []struct {
	path string
	form url.Values
} {
	return []struct {
		path string
		form url.Values
	}{
		{"/keys", url.Values{"name": {"new"}}},
		{"/keys/" + keyID + "/revoke", nil},
		{"/keys/" + keyID + "/roll", url.Values{"keep": {"now"}}},
		{"/webhooks", url.Values{"url": {"http://127.0.0.1:9/hook"}, "all": {"1"}}},
		{"/webhooks/" + endpointID + "/reveal", nil},
		{"/webhooks/" + endpointID + "/rotate", nil},
		{"/webhooks/" + endpointID + "/disable", nil},
		{"/webhooks/" + endpointID + "/enable", nil},
		{"/webhooks/" + endpointID + "/test", nil},
		{"/sandbox/keys", url.Values{"name": {"new"}}},
	}
}

// state is what a change could alter: the keys and endpoints of A.
func (f *fixture) state() string {
	f.t.Helper()
	keys, err := f.keys.List(f.t.Context(), "org_a")
	if err != nil {
		f.t.Fatal(err)
	}
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k.ID + " " + k.Name + " " + k.Hash)
		if k.RevokedAt != nil {
			b.WriteString(" revoked")
		}
		b.WriteString("\n")
	}
	for _, org := range []string{"org_a", "org_a~sandbox"} {
		p, err := f.st.ListWebhookEndpoints(f.t.Context(), org, storeQuery())
		if err != nil {
			f.t.Fatal(err)
		}
		for _, e := range p.Items {
			b.WriteString(e.ID + " " + e.URL + " " + string(e.Secret) + " " + string(e.PreviousSecret))
			if e.Enabled {
				b.WriteString(" enabled")
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func TestRefusedChangesChangeNothing(t *testing.T) {
	f := newFixture(t)
	_, k := f.mint("org_a", "CI")
	e := f.endpoint("org_a", "http://127.0.0.1:9/a")
	before := f.state()
	senders := []struct {
		name   string
		status int
		send   func(path string, form url.Values) *httptest.ResponseRecorder
	}{
		{"member", http.StatusForbidden, func(p string, form url.Values) *httptest.ResponseRecorder { return f.post(memberA, p, form) }},
		{"cross-site", http.StatusForbidden, func(p string, form url.Values) *httptest.ResponseRecorder {
			r := formRequest(p, form)
			r.Header.Set("Sec-Fetch-Site", "cross-site")
			return f.do(adminA, r)
		}},
		{"foreign origin", http.StatusForbidden, func(p string, form url.Values) *httptest.ResponseRecorder {
			r := formRequest(p, form)
			r.Header.Set("Origin", "https://evil.example")
			return f.do(adminA, r)
		}},
		{"nobody", http.StatusUnauthorized, func(p string, form url.Values) *httptest.ResponseRecorder { return f.post(nobody, p, form) }},
		{"another organization", http.StatusNotFound, func(p string, form url.Values) *httptest.ResponseRecorder { return f.post(adminB, p, form) }},
	}
	for _, s := range senders {
		for _, c := range changes(k.ID, e.ID) {
			if s.name == "another organization" && (c.path == "/keys" || c.path == "/webhooks" || c.path == "/sandbox/keys") {
				continue // B may make its own
			}
			t.Run(s.name+c.path, func(t *testing.T) {
				is := is.New(t)
				res := s.send(c.path, c.form)
				is.Equal(res.Code, s.status)                                     // refused
				is.Equal(f.state(), before)                                      // and nothing changed
				is.True(!strings.Contains(res.Body.String(), "New API key"))     // nor any secret shown
				is.True(!strings.Contains(res.Body.String(), "whsec_"))          //
				is.True(!strings.Contains(res.Header().Get("Location"), "done")) // nor a change reported
			})
		}
	}
	is := is.New(t)
	is.Equal(len(f.changed()), 0) // no change was reported
}

// formRequest is a POST of form to path without any origin header.
func formRequest(path string, form url.Values) *http.Request {
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return r
}

func TestMemberSeesNoForms(t *testing.T) {
	f := newFixture(t)
	_, k := f.mint("org_a", "CI")
	e := f.endpoint("org_a", "http://127.0.0.1:9/a")
	for _, p := range append(pages, "/webhooks/"+e.ID) {
		is := is.New(t)
		res := f.get(memberA, p)
		is.Equal(res.Code, http.StatusOK) // a member sees every page
		body := res.Body.String()
		is.True(!strings.Contains(body, `method="post"`))                                 // without its forms
		is.Equal(strings.Count(body, "<button"), strings.Count(body, ">Filter</button>")) // and buttons, but the request log's filter
	}
	is := is.New(t)
	body := f.get(memberA, "/keys").Body.String()
	is.True(strings.Contains(body, k.Prefix)) // the keys are listed
	res := f.get(memberA, "/keys/"+k.ID+"/revoke")
	is.Equal(res.Code, http.StatusOK)                              // the confirmation shows
	is.True(!strings.Contains(res.Body.String(), `method="post"`)) // without its form
}

func TestAnotherOrganizationsIDs(t *testing.T) {
	f := newFixture(t)
	_, k := f.mint("org_a", "Acme CI key")
	e := f.endpoint("org_a", "http://127.0.0.1:9/a")
	for _, p := range []string{"/keys/" + k.ID + "/revoke", "/keys/" + k.ID + "/roll", "/webhooks/" + e.ID,
		"/sandbox/keys/" + k.ID + "/revoke", "/sandbox/webhooks/" + e.ID, "/requests?key=" + k.ID} {
		is := is.New(t)
		res := f.get(adminB, p)
		is.Equal(res.Code, http.StatusNotFound)               // another organization's id is not found
		is.True(!strings.Contains(res.Body.String(), k.Name)) // and nothing of it shows
	}
	is := is.New(t)
	// A's project in B's form: 404, and no key is made.
	res := f.post(adminB, "/keys", url.Values{"name": {"x"}, "project": {"p_a1"}})
	is.Equal(res.Code, http.StatusNotFound)
	keys, _ := f.keys.List(t.Context(), "org_b")
	is.Equal(len(keys), 0)
}

func TestMountedUnderPrefix(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	mux := http.NewServeMux()
	mux.Handle("/settings/", http.StripPrefix("/settings", f.h))
	r := httptest.NewRequest(http.MethodGet, "/settings/keys", nil)
	r.Header.Set(orgHeader, "org_a")
	r.Header.Set(roleHeader, "admin")
	res := httptest.NewRecorder()
	mux.ServeHTTP(res, r)
	is.Equal(res.Code, 200)
	body := res.Body.String()
	is.True(strings.Contains(body, `href="/settings/webhooks"`))     // links carry the prefix
	is.True(strings.Contains(body, `action="/settings/keys"`))       // and so do forms
	is.True(strings.Contains(body, `href="/settings/sandbox/keys"`)) // and the switch

	// A router that passes the whole path on, with WithPrefix.
	g := newFixture(t, devsettings.WithPrefix("/portal/dev"))
	r = httptest.NewRequest(http.MethodGet, "/portal/dev/usage", nil)
	res = g.do(adminA, r)
	is.Equal(res.Code, 200)
	is.True(strings.Contains(res.Body.String(), `href="/portal/dev/keys"`))
	res = g.do(adminA, httptest.NewRequest(http.MethodGet, "/portal/dev/", nil))
	is.Equal(res.Code, http.StatusSeeOther)
	is.Equal(res.Header().Get("Location"), "/portal/dev/keys") // the root sends to the keys
}
