package statusclient_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusclient"
)

// deprecatingServer answers every project as the API answers a deprecated
// route, and the list as usual.
func deprecatingServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/projects" {
			_, _ = w.Write([]byte(`{"data":[],"meta":{"page":1,"per_page":20,"total":0}}`))
			return
		}
		w.Header().Set("Deprecation", "@1780272000") // 2026-06-01
		w.Header().Set("Sunset", "Fri, 01 Jan 2027 00:00:00 GMT")
		w.Header().Add("Link", `</v1/projects?page=1>; rel="first"`)
		w.Header().Add("Link", `<https://agency.example/changes>; rel="deprecation"; type="text/html"`)
		id := strings.TrimPrefix(r.URL.Path, "/v1/projects/")
		_, _ = w.Write([]byte(`{"data":{"id":"` + id + `","name":"P","status":"planned","startedAt":null,"dueAt":null,"updatedAt":"2026-03-01T09:00:00Z"}}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestResponseDeprecation(t *testing.T) {
	is := is.New(t)
	var logs bytes.Buffer
	c := statusclient.New(deprecatingServer(t).URL, "csk_secret_key", statusclient.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	ctx := context.Background()

	_, resp, err := c.GetProject(ctx, "p1")
	is.NoErr(err)
	is.Equal(resp.Deprecation, &statusclient.Deprecation{
		Since:  time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC),
		Sunset: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC),
		Notice: "https://agency.example/changes",
	})
	_, resp, err = c.GetProject(ctx, "p2")
	is.NoErr(err)
	is.True(resp.Deprecation != nil) // every answer says so

	_, resp, err = c.ListProjects(ctx, statusclient.ProjectListOptions{})
	is.NoErr(err)
	is.Equal(resp.Deprecation, (*statusclient.Deprecation)(nil)) // nothing deprecated there

	is.Equal(strings.Count(logs.String(), "level=WARN"), 1) // once per route, not per answer
	is.True(strings.Contains(logs.String(), "route=\"GET /v1/projects/{id}\""))
	is.True(strings.Contains(logs.String(), "sunset=2027-01-01"))
	is.True(strings.Contains(logs.String(), "notice=https://agency.example/changes"))
	is.True(!strings.Contains(logs.String(), "csk_secret_key")) // never the key
}
