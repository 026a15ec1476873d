package statusclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusclient"
)

func TestListDeletions(t *testing.T) {
	is := is.New(t)
	c, last := contractServer(t)
	since := time.Date(2026, 3, 1, 10, 0, 0, 500, time.FixedZone("Paris", 3600))
	items, resp, err := c.ListDeletions(context.Background(), statusclient.DeletionListOptions{Since: since, Type: statusclient.DeletionProject})
	is.NoErr(err)
	is.Equal(last.URL.RawQuery, "since=2026-03-01T09%3A00%3A00Z&type=project") // UTC, whole seconds
	is.Equal(resp.Meta.Total, 2)
	is.Equal(items, []statusclient.Deletion{
		{Type: statusclient.DeletionProject, ID: "p9", DeletedAt: ts("2026-03-01T09:00:00Z")},
		{Type: statusclient.DeletionMilestone, ID: "m9", DeletedAt: ts("2026-03-01T09:00:00Z")},
	})
}

func TestDeletionsWithoutSinceSendNothing(t *testing.T) {
	is := is.New(t)
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls++ }))
	defer srv.Close()
	c := statusclient.New(srv.URL, "k")
	_, resp, err := c.ListDeletions(context.Background(), statusclient.DeletionListOptions{Type: statusclient.DeletionProject})
	is.True(err != nil) // since is required
	is.True(resp == nil)
	n := 0
	for _, err := range c.AllDeletions(context.Background(), statusclient.DeletionListOptions{}) {
		is.True(err != nil)
		n++
	}
	is.Equal(n, 1)
	is.Equal(calls, 0) // refused before any request
}

// refusingServer answers every request with a 400 INVALID_PARAMETER naming
// param.
func refusingServer(t *testing.T, param string) *statusclient.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusBadRequest, "INVALID_PARAMETER", "refused", param)
	}))
	t.Cleanup(srv.Close)
	return statusclient.New(srv.URL, "k")
}

func TestSinceTooOldIsResyncRequired(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	opts := statusclient.DeletionListOptions{Since: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)}
	c := refusingServer(t, "since")

	_, resp, err := c.ListDeletions(ctx, opts)
	is.True(errors.Is(err, statusclient.ErrResyncRequired))                    // the caller can tell
	is.Equal(statusclient.ErrorCodeOf(err), statusclient.CodeInvalidParameter) // and still reach the server's answer
	var apiErr *statusclient.Error
	is.True(errors.As(err, &apiErr))
	is.Equal(apiErr.Param, "since")
	is.Equal(resp.StatusCode, http.StatusBadRequest)

	n := 0
	for _, err := range c.AllDeletions(ctx, opts) {
		is.True(errors.Is(err, statusclient.ErrResyncRequired)) // from the iterator too
		n++
	}
	is.Equal(n, 1)

	_, _, err = refusingServer(t, "limit").ListDeletions(ctx, opts)
	is.Equal(statusclient.ErrorCodeOf(err), statusclient.CodeInvalidParameter)
	is.True(!errors.Is(err, statusclient.ErrResyncRequired)) // another parameter refused is not a resync
}
