package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/matryer/is"
)

func TestLoadReportsWhatTheServerAnswered(t *testing.T) {
	is := is.New(t)
	var calls, authed atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Header.Get("Authorization") == "Bearer k" {
			authed.Add(1)
		}
		if r.URL.Path == "/v1/invoices" {
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, _ = w.Write([]byte(`{"data":[]}`))
	}))
	defer srv.Close()

	var out bytes.Buffer
	err := run(context.Background(), []string{"-base-url", srv.URL, "-key", "k", "-path", "/v1/projects,/v1/invoices", "-c", "2", "-d", "200ms"}, &out)
	is.NoErr(err)
	is.True(calls.Load() > 0)             // requests were sent
	is.Equal(authed.Load(), calls.Load()) // every one with the key
	is.True(strings.Contains(out.String(), "requests/s"))
	is.True(strings.Contains(out.String(), "200: ")) // statuses are counted
	is.True(strings.Contains(out.String(), "429: ")) // both paths were requested
	is.True(strings.Contains(out.String(), "latency p50"))
}

func TestLoadNeedsAKey(t *testing.T) {
	is := is.New(t)
	t.Setenv("STATUS_API_KEY", "")
	err := run(context.Background(), []string{"-d", "1s"}, &bytes.Buffer{})
	is.True(err != nil) // no key, no load
}
