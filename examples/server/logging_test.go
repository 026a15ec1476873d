package main

import (
	"net/url"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/testenv"
)

// TestOutageLogIsPaced serves from PostgreSQL through a proxy, cuts it,
// and checks what N failed requests write to the log: one request line
// each, a warning, and one line from the API saying why, with a count, not
// a warning and an error per request; and at most one line from the cache's
// listening connection, whatever its retries, from the request log,
// whose batches are lost meanwhile, and from the webhook dispatcher, whose
// passes fail meanwhile.
func TestOutageLogIsPaced(t *testing.T) {
	is := is.New(t)
	u, err := url.Parse(testSchema(t, testenv.PostgresURL(t)))
	is.NoErr(err)
	px := testenv.NewProxy(t, u.Host)
	u.Host = px.Addr()
	s := startServer(t, nil, "-data", contractFile, "-database-url", u.String())
	is.Equal(call(t, "GET", s.url+"/v1/projects", "key-acme-1").status, 200) // PostgreSQL answers
	before := len(s.logged(t, "msg=request", 1))

	px.Cut()
	const n = 200
	for range n {
		res := call(t, "GET", s.url+"/v1/projects", "key-acme-1")
		is.Equal(res.status, 503)
	}
	s.logged(t, "msg=request", n+1) // the request lines, written in blocks
	var requests, unavailable, listening, reqlog, webhooks, other int
	for _, line := range strings.Split(strings.TrimSpace(s.stderr.String()[before:]), "\n") {
		switch {
		case strings.Contains(line, "msg=request") && strings.Contains(line, "status=503"):
			requests++
			is.True(strings.Contains(line, "level=WARN")) // a 503's request line is a warning
		case strings.Contains(line, "backend unavailable"):
			unavailable++
			is.True(strings.Contains(line, "failed_requests=1")) // the first failed request logs at once
		case strings.Contains(line, "invalidations"):
			listening++
		case strings.Contains(line, "request log: records lost"):
			reqlog++
		case strings.Contains(line, "msg=\"webhook: "):
			webhooks++
		default:
			other++
			t.Logf("unexpected line: %s", line)
		}
	}
	is.Equal(requests, n)    // one request line per request
	is.Equal(unavailable, 1) // one line saying why, for the whole outage so far
	is.True(listening <= 1)  // at most one from the listening connection
	is.True(reqlog <= 1)     // at most one from the request log, with a count
	is.True(webhooks <= 1)   // at most one from the webhook dispatcher, with a count
	is.Equal(other, 0)       // and nothing else
}
