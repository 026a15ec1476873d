package statusclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusclient"
)

// TestRelativeDownloadLink checks that a root-relative link, which a
// server without a public URL sends, comes out absolute, on the client's
// base URL.
func TestRelativeDownloadLink(t *testing.T) {
	is := is.New(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":{"url":"/api/v1/deliverables/d1/file?org=o&expires=1&signature=s","expiresAt":"2026-03-01T09:15:00Z"}}`))
	}))
	t.Cleanup(srv.Close)
	c := statusclient.New(srv.URL+"/api/v1", "key")
	for _, download := range []func(context.Context, string) (statusclient.DownloadLink, *statusclient.Response, error){c.DownloadDeliverable, c.DownloadAttachment} {
		link, _, err := download(context.Background(), "d1")
		is.NoErr(err)
		is.Equal(link.URL, srv.URL+"/api/v1/deliverables/d1/file?org=o&expires=1&signature=s") // resolved against the base URL
	}
}
