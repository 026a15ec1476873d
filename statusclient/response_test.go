package statusclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/store"
)

func TestResponseRate(t *testing.T) {
	reset := time.Date(2026, 3, 1, 9, 1, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   statusclient.Rate
	}{
		{"limited", map[string]string{"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "42", "X-RateLimit-Reset": "1772355660"},
			statusclient.Rate{Limit: 60, Remaining: 42, Reset: reset, Limited: true}},
		{"spent", map[string]string{"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1772355660"},
			statusclient.Rate{Limit: 60, Remaining: 0, Reset: reset, Limited: true}},
		{"no headers: an unlimited plan", nil, statusclient.Rate{}},
		{"some headers only", map[string]string{"X-RateLimit-Limit": "60"}, statusclient.Rate{}},
		{"not a number", map[string]string{"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "lots", "X-RateLimit-Reset": "1772355660"}, statusclient.Rate{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("X-Request-Id", "req-1")
				w.Header().Set("ETag", `W/"abc"`)
				writeJSON(w, http.StatusOK, map[string]any{"data": map[string]string{"id": "p1"}})
			}))
			defer srv.Close()
			_, resp, err := statusclient.New(srv.URL, "k").GetProject(context.Background(), "p1")
			is.NoErr(err)
			is.Equal(resp.Rate, tt.want)
			is.Equal(resp.StatusCode, 200)
			is.Equal(resp.RequestID, "req-1")
			is.Equal(resp.ETag, `W/"abc"`)
			is.Equal(resp.Header.Get("Content-Type"), "application/json; charset=utf-8") // the headers as sent
			is.Equal(resp.Meta, statusclient.Meta{})                                     // not a list
			is.Equal(resp.NextPage, 0)
		})
	}
}

func TestNoResponseWithoutAnAnswer(t *testing.T) {
	is := is.New(t)
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	_, resp, err := statusclient.New(url, "k").GetProject(context.Background(), "p1")
	is.True(err != nil)
	is.True(resp == nil)                                                // no answer, no Response
	is.Equal(statusclient.ErrorCodeOf(err), statusclient.ErrorCode("")) // and not an API error
}

func TestRealHandlerRateFigures(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	a := newRealAPI(t, ratelimit.WithRate(store.PlanStarter, ratelimit.Rate{Limit: 3, Period: time.Minute}))
	starter := a.org(t, "org_s", store.PlanStarter, statusclient.WithRetry(1, 0))
	enterprise := a.org(t, "org_e", store.PlanEnterprise)
	seedInvoices(t, a.st, "org_s", 5)
	before := time.Now().Truncate(time.Second)

	_, resp, err := starter.ListInvoices(ctx, statusclient.InvoiceListOptions{})
	is.NoErr(err)
	is.True(resp.Rate.Limited) // a starter plan is limited
	is.Equal(resp.Rate.Limit, 3)
	is.Equal(resp.Rate.Remaining, 2)
	is.True(!resp.Rate.Reset.Before(before) && resp.Rate.Reset.Before(before.Add(62*time.Second))) // within the window
	is.True(resp.RequestID != "")
	is.True(resp.ETag != "")

	_, resp, err = starter.GetProject(ctx, "p1")
	is.NoErr(err)
	is.Equal(resp.Rate.Remaining, 1) // every method's Response has the figures
	_, resp, err = starter.GetProject(ctx, "p1")
	is.NoErr(err)
	is.Equal(resp.Rate.Remaining, 0)

	_, resp, err = starter.ListInvoices(ctx, statusclient.InvoiceListOptions{})
	var apiErr *statusclient.Error
	is.True(errors.As(err, &apiErr))
	is.Equal(apiErr.Code, statusclient.CodeRateLimited)
	is.True(resp != nil)                                   // a refusal is an answer: it has a Response
	is.Equal(apiErr.Response, resp)                        // the same on the *Error
	is.True(resp.Rate.Limited && resp.Rate.Remaining == 0) // the spent budget
	is.True(apiErr.RetryAfter > 0)

	_, resp, err = enterprise.ListProjects(ctx, statusclient.ProjectListOptions{})
	is.NoErr(err)
	is.Equal(resp.Rate, statusclient.Rate{}) // no rate-limit headers: not Limited
}
