package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// browser is a client with cookies that does not follow redirects.
func browser(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// send sends a request with the client and returns the status, the
// Location and the body.
func send(t *testing.T, c *http.Client, method, u string, form url.Values, header map[string]string) (int, string, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header.Get("Location"), string(b)
}

func TestSettingsBehindDemoSignIn(t *testing.T) {
	is := is.New(t)
	s := startServer(t, nil)
	is.True(strings.Contains(s.stdout.String(), s.url+"/settings/")) // the welcome names the URL
	c := browser(t)
	code, loc, _ := send(t, c, "GET", s.url+"/settings/keys", nil, nil)
	is.Equal(code, http.StatusSeeOther)
	is.Equal(loc, "/settings/sign-in") // not signed in: to the sign-in
	code, _, page := send(t, c, "GET", s.url+"/settings/sign-in", nil, nil)
	is.Equal(code, 200)
	is.True(strings.Contains(page, `<label for="org">Organization</label>`))                                      // the contract's form
	is.True(strings.Contains(page, `<option value="org_acme">`))                                                  // organization ids as values
	is.True(strings.Contains(page, `<label for="role">Role</label>`))                                             //
	is.True(strings.Contains(page, `<option value="admin">admin</option><option value="member">member</option>`)) //
	is.True(strings.Contains(page, `<button type="submit">Sign in</button>`))                                     //

	same := map[string]string{"Origin": s.url}
	code, _, _ = send(t, c, "POST", s.url+"/settings/sign-in", url.Values{"org": {"org_acme"}, "role": {"root"}}, same)
	is.Equal(code, http.StatusBadRequest) // no such role
	code, _, _ = send(t, c, "POST", s.url+"/settings/sign-in", url.Values{"org": {"org_nope"}, "role": {"admin"}}, same)
	is.Equal(code, http.StatusBadRequest) // no such organization
	code, _, _ = send(t, c, "POST", s.url+"/settings/sign-in", url.Values{"org": {"org_acme"}, "role": {"admin"}},
		map[string]string{"Origin": "https://evil.example"})
	is.Equal(code, http.StatusForbidden) // another site cannot sign a visitor in

	code, loc, _ = send(t, c, "POST", s.url+"/settings/sign-in", url.Values{"org": {"org_acme"}, "role": {"admin"}}, same)
	is.Equal(code, http.StatusSeeOther)
	is.Equal(loc, "/settings/keys")
	code, _, page = send(t, c, "GET", s.url+"/settings/keys", nil, nil)
	is.Equal(code, 200)
	is.True(strings.Contains(page, "<h1>API keys</h1>"))
	is.True(strings.Contains(page, ">Create key</button>")) // an admin's page

	code, _, page = send(t, c, "POST", s.url+"/settings/keys", url.Values{"name": {"from the test"}}, same)
	is.Equal(code, 200)
	is.True(strings.Contains(page, "New API key"))
	secret := page[strings.Index(page, `readonly value="`)+len(`readonly value="`):]
	secret = secret[:strings.Index(secret, `"`)]
	res := call(t, "GET", s.url+"/v1/projects", secret)
	is.Equal(res.status, 200) // the new key answers /v1 at once

	// A forged cookie is no session.
	forged := browser(t)
	u, _ := url.Parse(s.url + "/settings/")
	forged.Jar.SetCookies(u, []*http.Cookie{{Name: demoSession, Value: "b3JnX2FjbWUAYWRtaW4.forged"}})
	code, loc, _ = send(t, forged, "GET", s.url+"/settings/keys", nil, nil)
	is.Equal(code, http.StatusSeeOther)
	is.Equal(loc, "/settings/sign-in")
	is.True(!strings.Contains(s.stderr.String(), secret)) // the key is in no log line
}

func TestSettingsNotServedOffLoopback(t *testing.T) {
	is := is.New(t)
	s := startServer(t, nil, "-addr", ":0") // every interface: the demo sign-in would be anyone's
	base := strings.Replace(s.url, "localhost", "127.0.0.1", 1)
	code, _, body := send(t, browser(t), "GET", base+"/settings/sign-in", nil, nil)
	is.Equal(code, http.StatusNotFound) // the API's 404
	is.True(strings.Contains(body, "NOT_FOUND"))
	is.True(!strings.Contains(s.stdout.String(), "/settings/"))
}
