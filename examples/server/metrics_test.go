package main

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

// scrape returns the lines of the metrics page that start with name.
func scrape(t *testing.T, s *testServer, name string) []string {
	t.Helper()
	res := call(t, "GET", s.metricsURL, "")
	if res.status != 200 {
		t.Fatalf("GET %s: %d\n%s", s.metricsURL, res.status, res.body)
	}
	var lines []string
	for line := range strings.Lines(string(res.body)) {
		if strings.HasPrefix(line, name) {
			lines = append(lines, strings.TrimSpace(line))
		}
	}
	return lines
}

func TestMetrics(t *testing.T) {
	is := is.New(t)
	s := startServer(t, nil, "-data", contractFile, "-metrics-addr", "127.0.0.1:0")
	is.True(strings.HasSuffix(s.metricsURL, "/metrics")) // the tests learn the address
	is.True(!strings.HasPrefix(s.metricsURL, s.url))     // a listener of its own

	const acme = "key-acme-1"
	is.Equal(call(t, "GET", s.url+"/v1/projects/p1", acme).status, 200)
	is.Equal(call(t, "GET", s.url+"/v1/projects/p2", acme).status, 200)
	is.Equal(call(t, "GET", s.url+"/v1/projects/nope", acme).status, 404)
	is.Equal(call(t, "GET", s.url+"/v1/projects", acme).status, 200)

	lines := scrape(t, s, "http_server_request_duration_seconds")
	var ok200, notFound string
	for _, line := range lines {
		is.True(!strings.Contains(line, "/v1/projects/p")) // route patterns, never paths
		is.True(!strings.Contains(line, "nope"))
		if !strings.HasPrefix(line, "http_server_request_duration_seconds_count{") || !strings.Contains(line, `http_route="/v1/projects/{id}"`) {
			continue
		}
		switch {
		case strings.Contains(line, `http_response_status_code="200"`):
			ok200 = line
		case strings.Contains(line, `http_response_status_code="404"`):
			notFound = line
		}
	}
	is.True(strings.HasSuffix(ok200, " 2"))                                        // p1 and p2 in one series
	is.True(strings.Contains(ok200, `http_request_method="GET"`))                  // by method
	is.True(strings.HasSuffix(notFound, " 1"))                                     // not found apart
	is.True(strings.Contains(notFound, `error_type="NOT_FOUND"`))                  // with the envelope's code
	is.True(len(scrape(t, s, "http_server_request_duration_seconds_bucket{")) > 0) // a histogram
	for _, name := range []string{"clientstatus_request_log_dropped_total", "clientstatus_request_log_lost_total"} {
		lines := scrape(t, s, name+"{")
		is.Equal(len(lines), 1)                    // the request log's losses, for an alert
		is.True(strings.HasSuffix(lines[0], " 0")) // none while the store answers
	}

	is.Equal(call(t, "GET", s.url+"/metrics", "").errorCode(t), "NOT_FOUND") // not on the API's listener
	base := strings.TrimSuffix(s.metricsURL, "/metrics")
	is.Equal(call(t, "GET", base+"/v1/projects", acme).status, 404) // nor the API on the metrics' one
}

func TestMetricsRateLimited(t *testing.T) {
	is := is.New(t)
	s := startServer(t, nil, "-data", contractFile, "-metrics-addr", "127.0.0.1:0")
	for range 61 {
		call(t, "GET", s.url+"/v1/projects", "key-echo") // starter: 60 a minute
	}
	lines := scrape(t, s, "clientstatus_ratelimit_refused_total{")
	is.Equal(len(lines), 1)                                                  // one series
	is.True(strings.Contains(lines[0], `clientstatus_ratelimit_limit="60"`)) // by the plan's limit
	is.True(!strings.Contains(lines[0], "org"))                              // organizations are off by default
	is.True(strings.HasSuffix(lines[0], " 1"))                               // one 429
}

func TestMetricsOff(t *testing.T) {
	is := is.New(t)
	s := startServer(t, nil, "-data", contractFile)
	is.Equal(s.metricsURL, "") // off by default
}

func TestMetricsAddrRefused(t *testing.T) {
	is := is.New(t)
	err := startErr(t, "-metrics-addr", "127.0.0.1:-1")
	is.True(strings.HasPrefix(err.Error(), "-metrics-addr: ")) // names the flag
}
