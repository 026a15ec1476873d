package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/testenv"
)

// get sends a GET with an X-Request-Id of the client's ("" for none).
func get(t *testing.T, url, requestID string) response {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if requestID != "" {
		req.Header.Set("X-Request-Id", requestID)
	}
	return do(t, req)
}

// TestHealthRoutesCarryRequestIDs checks that /healthz and /readyz answer
// with an X-Request-Id, as the API does: the client's own when sane, else
// a new one.
func TestHealthRoutesCarryRequestIDs(t *testing.T) {
	s := startServer(t, nil, "-data", contractFile, "-log-format", "json")
	for _, path := range []string{"/healthz", "/readyz"} {
		is := is.New(t)
		res := get(t, s.url+path, "")
		is.Equal(res.status, 200)
		is.Equal(len(res.header.Get("X-Request-Id")), 32) // a new id
		res = get(t, s.url+path, "probe-1")
		is.Equal(res.header.Get("X-Request-Id"), "probe-1") // the client's own, kept
		res = get(t, s.url+path, "not sane!")
		is.Equal(len(res.header.Get("X-Request-Id")), 32) // an insane one replaced
		res = call(t, "POST", s.url+path, "")
		is.Equal(res.status, 405)
		is.True(res.header.Get("X-Request-Id") != "") // errors too
	}
	s.logged(t, `"path":"/readyz","status":200`, 1) // the request log...
	s.logged(t, `"request_id":"probe-1"`, 2)        // ...names the id
}

func TestReadyz(t *testing.T) {
	is := is.New(t)
	s := startServer(t, nil, "-data", contractFile)
	res := call(t, "GET", s.url+"/readyz", "")
	is.Equal(res.status, 200)
	is.Equal(string(res.body), `{"status":"ready"}`+"\n")
	is.Equal(res.header.Get("Content-Type"), "application/json; charset=utf-8")
	is.Equal(res.header.Get("Cache-Control"), "no-store")
	is.Equal(call(t, "HEAD", s.url+"/readyz", "").status, 200)
}

// waitStatus polls url until it answers status, failing the test after
// 10 seconds without, and returns the response.
func waitStatus(t *testing.T, url string, status int) response {
	t.Helper()
	var res response
	testenv.Poll(t, 10*time.Second, func() error {
		if res = call(t, "GET", url, ""); res.status != status {
			return fmt.Errorf("GET %s: %d %s, want %d", url, res.status, res.body, status)
		}
		return nil
	})
	return res
}

// TestReadyzPostgresDown serves from PostgreSQL through a proxy, cuts
// it, and checks that /readyz says the store and key store are not ready
// (and no more than that), while /healthz stays 200; then that it is
// ready again once PostgreSQL is back.
func TestReadyzPostgresDown(t *testing.T) {
	is := is.New(t)
	u, err := url.Parse(testSchema(t, testenv.PostgresURL(t)))
	is.NoErr(err)
	px := testenv.NewProxy(t, u.Host)
	u.Host = px.Addr()
	s := startServer(t, nil, "-data", contractFile, "-database-url", u.String())
	is.Equal(call(t, "GET", s.url+"/readyz", "").status, 200) // PostgreSQL answers

	px.Cut()
	res := call(t, "GET", s.url+"/readyz", "")
	is.Equal(res.status, 503)
	is.Equal(string(res.body), `{"status":"unavailable"}`+"\n") // no parts, no internals
	is.Equal(call(t, "GET", s.url+"/healthz", "").status, 200)  // alive all the same
	log := s.stderr.String()
	is.True(strings.Contains(log, `msg="statusapi: not ready"`))   // the log says so...
	is.True(strings.Contains(log, `failed="[store key store]"`))   // ...which parts...
	is.True(strings.Contains(log, "store: bunstore: ping"))        // ...and why
	is.True(strings.Contains(log, res.header.Get("X-Request-Id"))) // with the request id

	px.Restore()
	is.Equal(waitStatus(t, s.url+"/readyz", 200).status, 200) // ready again
}

// TestReadyzRedisDown limits on Redis through a proxy, cuts it, and
// checks /readyz: a limiter that fails closed answers 503 for every
// request, so the server is not ready; one that fails open still serves,
// so it is.
func TestReadyzRedisDown(t *testing.T) {
	redisURL := testenv.RedisURL(t)
	for _, tc := range []struct {
		policy string
		status int
		body   string
	}{
		{"closed", 503, `{"status":"unavailable"}` + "\n"},
		{"open", 200, `{"status":"ready"}` + "\n"},
	} {
		t.Run("fail "+tc.policy, func(t *testing.T) {
			is := is.New(t)
			u, err := url.Parse(redisURL)
			is.NoErr(err)
			px := testenv.NewProxy(t, u.Host)
			u.Host = px.Addr()
			prefix := "clientstatus-test:readyz:" + strings.ReplaceAll(t.Name(), "/", "_")
			s := startServer(t, nil, "-data", contractFile, "-redis-url", u.String(),
				"-redis-prefix", prefix, "-redis-outage", tc.policy)
			is.Equal(call(t, "GET", s.url+"/readyz", "").status, 200) // Redis answers

			px.Cut()
			res := call(t, "GET", s.url+"/readyz", "")
			is.Equal(res.status, tc.status)
			is.Equal(string(res.body), tc.body)
			if tc.status == 503 {
				is.True(strings.Contains(s.stderr.String(), "limiter: ratelimit: ping: store unavailable")) // the log says why
			}

			px.Restore()
			is.Equal(waitStatus(t, s.url+"/readyz", 200).status, 200) // ready again
		})
	}
}
