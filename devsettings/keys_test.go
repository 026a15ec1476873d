package devsettings_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
)

// newKeyField finds the one-time secret of a page.
var newKeyField = regexp.MustCompile(`<input id="new-key" type="text" readonly value="([^"]+)"`)

func TestCreateKeyShowsItsSecretOnce(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	res := f.post(adminA, "/keys", url.Values{"name": {"Zapier"}, "scope": {"projects:read", "invoices:read"},
		"project": {"p_a1"}, "expires": {"2026-04-01"}})
	is.Equal(res.Code, http.StatusOK) // the answer is the page, not a redirect
	m := newKeyField.FindStringSubmatch(res.Body.String())
	is.True(m != nil) // with the new key in "New API key"
	secret := m[1]
	is.True(strings.Contains(res.Body.String(), `<label for="new-key">New API key</label>`))

	p, err := f.keys.Resolve(t.Context(), secret)
	is.NoErr(err) // the key works at once
	is.Equal(p.Org.ID, "org_a")
	is.Equal(p.Restriction.Scopes, []auth.Scope{auth.ScopeProjects, auth.ScopeInvoices}) // with its scopes
	is.Equal(p.Restriction.ProjectIDs, []string{"p_a1"})                                 // and projects
	is.Equal(p.Expiry, time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC))                      // until the end of its day

	for _, page := range pages {
		is.True(!holds(f.get(adminA, page).Body.String(), secret)) // no later page holds it
	}
	is.True(!strings.Contains(f.log(), secret))                                                          // nor the log
	is.True(!strings.Contains(fmt.Sprint(f.changed()), secret))                                          // nor the change reported
	is.True(!strings.Contains(res.Header().Get("Location"), secret))                                     // nor a URL
	is.True(strings.Contains(res.Body.String(), "2026-03-02 09:00 UTC by Ana &lt;i&gt;admin&lt;/i&gt;")) // who made it
	c := f.changed()
	is.Equal(len(c), 1)
	is.Equal(c[0].Action, "key.created") // the change is reported
	is.Equal(c[0].By, "Ana <i>admin</i>")
	is.Equal(c[0].OrgID, "org_a")
	is.Equal(c[0].At, t0)
	is.True(strings.Contains(f.log(), "key.created")) // and logged
}

func TestCreateKeyRefusesBadInput(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		name string
		form url.Values
		want int
	}{
		{"no name", url.Values{"name": {""}}, 400},
		{"long name", url.Values{"name": {strings.Repeat("x", 201)}}, 400},
		{"unknown scope", url.Values{"name": {"x"}, "scope": {"admin:write"}}, 400},
		{"bad date", url.Values{"name": {"x"}, "expires": {"tomorrow"}}, 400},
		{"past date", url.Values{"name": {"x"}, "expires": {"2026-03-01"}}, 400},
		{"unknown project", url.Values{"name": {"x"}, "project": {"p_nope"}}, 404},
		{"huge form", url.Values{"name": {"x"}, "pad": {strings.Repeat("x", 100<<10)}}, 400},
		{"sandbox key with a live project", url.Values{"name": {"x"}, "project": {"p_a1"}}, 404},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			path := "/keys"
			if strings.HasPrefix(tt.name, "sandbox") {
				path = "/sandbox/keys"
			}
			res := f.post(adminA, path, tt.form)
			is.Equal(res.Code, tt.want)                                  // a clear refusal
			is.True(strings.Contains(res.Body.String(), `role="alert"`)) // that says why
			is.True(!newKeyField.MatchString(res.Body.String()))         // and no key
		})
	}
	is := is.New(t)
	keys, _ := f.keys.List(t.Context(), "org_a")
	is.Equal(len(keys), 0) // none made
}

func TestHostileTextIsText(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	hostile := `<script>alert(1)</script><img src=x onerror=alert(2)>"'`
	res := f.post(adminA, "/keys", url.Values{"name": {hostile}})
	is.Equal(res.Code, 200)
	e := f.endpoint("org_a", "http://127.0.0.1:9/<script>alert(3)</script>?q=\"'")
	_, k := f.mint("org_a", "k")
	rec := requestRecord("org_a", k.ID, "/v1/<script>alert(4)</script>", 404, "<b>NOT_FOUND</b>")
	is.NoErr(f.st.AppendRequests(t.Context(), rec))
	for _, p := range []string{"/keys", "/webhooks", "/webhooks/" + e.ID, "/requests", "/keys/" + k.ID + "/revoke"} {
		body := f.get(adminA, p).Body.String()
		for _, bad := range []string{"<script>alert", "<img src=x", "<b>NOT_FOUND"} {
			is.True(!strings.Contains(body, bad)) // hostile text is escaped
		}
	}
	is.True(strings.Contains(f.get(adminA, "/keys").Body.String(), "&lt;script&gt;alert(1)&lt;/script&gt;")) // and shown as text
	is.True(strings.Contains(f.get(adminA, "/requests").Body.String(), "&lt;b&gt;NOT_FOUND&lt;/b&gt;"))
	is.True(strings.Contains(f.get(adminA, "/keys").Body.String(), "App &lt;b&gt;2&lt;/b&gt;")) // a project's name too
}

func TestRevokeKey(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	secret, k := f.mint("org_a", "CI")
	page := f.get(adminA, "/keys/"+k.ID+"/revoke")
	is.Equal(page.Code, 200)
	is.True(strings.Contains(page.Body.String(), ">Revoke key</button>")) // the confirming button
	_, err := f.keys.Resolve(t.Context(), secret)
	is.NoErr(err) // asking is not revoking

	res := f.post(adminA, "/keys/"+k.ID+"/revoke", nil)
	is.Equal(res.Code, http.StatusSeeOther)
	is.Equal(res.Header().Get("Location"), "/keys?done=revoked")
	_, err = f.keys.Resolve(t.Context(), secret)
	is.True(err != nil) // the key is refused
	body := f.get(adminA, "/keys?done=revoked").Body.String()
	is.True(strings.Contains(body, "The key was revoked"))             // said so
	is.True(strings.Contains(body, "revoked 2026-03-02"))              // and listed as revoked
	is.True(strings.Contains(body, "by Ana &lt;i&gt;admin&lt;/i&gt;")) // and by whom
	is.Equal(f.get(adminA, "/keys/"+k.ID+"/revoke").Code, http.StatusConflict)
	is.Equal(f.post(adminA, "/keys/"+k.ID+"/roll", url.Values{"keep": {"1h"}}).Code, http.StatusConflict) // a revoked key does not roll
	is.Equal(f.changed()[0].Action, "key.revoked")
	is.Equal(f.changed()[0].Target, k.ID)
}

func TestRollKey(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		keep      string
		oldWorks  time.Duration // the old key still works this long after
		oldRefuse time.Duration // and is refused from this long after
	}{
		{"now", -1, 0},
		{"1h", 59 * time.Minute, time.Hour},
		{"24h", 23 * time.Hour, 24 * time.Hour},
		{"7d", 6 * 24 * time.Hour, 7 * 24 * time.Hour},
	} {
		t.Run(tt.keep, func(t *testing.T) {
			is := is.New(t)
			f.clock.Set(t0)
			oldSecret, old := f.mint("org_a", "roll "+tt.keep)
			is.Equal(f.get(adminA, "/keys/"+old.ID+"/roll").Code, 200)
			res := f.post(adminA, "/keys/"+old.ID+"/roll", url.Values{"keep": {tt.keep}})
			is.Equal(res.Code, 200)
			m := newKeyField.FindStringSubmatch(res.Body.String())
			is.True(m != nil) // the new key, once
			p, err := f.keys.Resolve(t.Context(), m[1])
			is.NoErr(err)
			is.True(p.KeyID != old.ID) // a new key
			if tt.oldWorks >= 0 {
				f.clock.Set(t0.Add(tt.oldWorks))
				_, err = f.keys.Resolve(t.Context(), oldSecret)
				is.NoErr(err) // the old one still works
			}
			f.clock.Set(t0.Add(tt.oldRefuse))
			_, err = f.keys.Resolve(t.Context(), oldSecret)
			is.True(err != nil) // until the chosen time
		})
	}
	is := is.New(t)
	_, k := f.mint("org_a", "x")
	is.Equal(f.post(adminA, "/keys/"+k.ID+"/roll", url.Values{"keep": {"forever"}}).Code, 400) // not a choice

	// A key is rolled once: a second click is refused, and the list says so.
	f.clock.Set(t0)
	is.Equal(f.post(adminA, "/keys/"+k.ID+"/roll", url.Values{"keep": {"1h"}}).Code, 200)
	keysBefore := len(mustList(t, f, "org_a"))
	again := f.post(adminA, "/keys/"+k.ID+"/roll", url.Values{"keep": {"1h"}})
	is.Equal(again.Code, http.StatusConflict)
	is.True(strings.Contains(again.Body.String(), "rolled already"))
	is.Equal(f.get(adminA, "/keys/"+k.ID+"/roll").Code, http.StatusConflict) // nor asked for again
	is.Equal(len(mustList(t, f, "org_a")), keysBefore)                       // no second successor
	body := f.get(adminA, "/keys").Body.String()
	is.True(strings.Contains(body, "rolled, active until 2026-03-02"))
	is.True(strings.Contains(body, `/keys/`+k.ID+`/roll"`))   // its Roll button stays, as the contract has it on every active row, and says why
	is.True(strings.Contains(body, `/keys/`+k.ID+`/revoke"`)) // and it can be revoked
}

func mustList(t *testing.T, f *fixture, org string) []auth.Key {
	t.Helper()
	list, err := f.keys.List(t.Context(), org)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	return list
}

func TestKeysPaged(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	ks := auth.NewMemoryKeyStore(f.st)
	for i := range 60 {
		is.NoErr(ks.CreateKey(context.Background(), auth.Key{ID: fmt.Sprintf("key_%03d", i), OrgID: "org_a",
			Name: fmt.Sprintf("key number %03d", i), Prefix: "csk_x", Hash: fmt.Sprintf("%064d", i), CreatedAt: t0.Add(time.Duration(i) * time.Second)}))
	}
	f.keys = auth.NewKeys(ks)
	f.h = newHandler(f)
	seen := map[string]bool{}
	names := regexp.MustCompile(`<th scope="row">(key number \d+)</th>`)
	next := "/keys"
	for pages := 0; next != ""; pages++ {
		is.True(pages < 5)
		body := f.get(adminA, next).Body.String()
		rows := names.FindAllStringSubmatch(body, -1)
		is.True(len(rows) <= 25) // a page holds at most 25
		for _, r := range rows {
			is.True(!seen[r[1]]) // each key once
			seen[r[1]] = true
		}
		next = ""
		if m := regexp.MustCompile(`<a href="([^"]+)" rel="next">`).FindStringSubmatch(body); m != nil {
			next = strings.ReplaceAll(m[1], "&amp;", "&")
		}
	}
	is.Equal(len(seen), 60)                             // every key, over three pages
	is.Equal(f.get(adminA, "/keys?page=0").Code, 400)   // a page from 1
	is.Equal(f.get(adminA, "/keys?page=abc").Code, 400) // a number
	is.Equal(f.get(adminA, "/keys?page=99").Code, 200)  // past the end: an empty page
}

func TestSandboxKeys(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	f.mint("org_a", "live one")
	res := f.post(adminA, "/sandbox/keys", url.Values{"name": {"test key"}})
	is.Equal(res.Code, 200)
	m := newKeyField.FindStringSubmatch(res.Body.String())
	is.True(m != nil)
	is.True(strings.HasPrefix(m[1], auth.SandboxKeyPrefix)) // a sandbox key
	body := f.get(adminA, "/sandbox/keys").Body.String()
	is.True(strings.Contains(body, "test key"))  // listed in the sandbox
	is.True(!strings.Contains(body, "live one")) // without the live keys
	is.True(strings.Contains(body, "Sandbox"))   // which says so
	is.True(strings.Contains(body, `<a href="/keys">Live</a>`))
	live := f.get(adminA, "/keys").Body.String()
	is.True(!strings.Contains(live, "test key"))
	is.True(strings.Contains(live, `<a href="/sandbox/keys">Sandbox</a>`))
	is.True(f.changed()[0].Sandbox) // the change says where
}
