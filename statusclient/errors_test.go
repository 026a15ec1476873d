package statusclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusclient"
)

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		header map[string]string
		body   string
		want   statusclient.Error
	}{
		{
			name:   "contract error body",
			status: 400,
			body:   `{"error":{"code":"INVALID_PARAMETER","message":"limit must be 1..100","param":"limit","request_id":"req-body"}}`,
			header: map[string]string{"X-Request-Id": "req-header"},
			want:   statusclient.Error{StatusCode: 400, Code: statusclient.CodeInvalidParameter, Message: "limit must be 1..100", Param: "limit", RequestID: "req-body"},
		},
		{
			name:   "request id from the header when the body has none",
			status: 404,
			body:   `{"error":{"code":"NOT_FOUND","message":"no such project"}}`,
			header: map[string]string{"X-Request-Id": "req-header"},
			want:   statusclient.Error{StatusCode: 404, Code: statusclient.CodeNotFound, Message: "no such project", RequestID: "req-header"},
		},
		{
			name:   "a proxy's HTML",
			status: 502,
			body:   `<html><body>Bad Gateway</body></html>`,
			want:   statusclient.Error{StatusCode: 502, Code: "HTTP_502", Message: "Bad Gateway"},
		},
		{
			name:   "JSON without an error object",
			status: 500,
			body:   `{"message":"oops"}`,
			want:   statusclient.Error{StatusCode: 500, Code: "HTTP_500", Message: "Internal Server Error"},
		},
		{
			name:   "empty body",
			status: 401,
			want:   statusclient.Error{StatusCode: 401, Code: "HTTP_401", Message: "Unauthorized"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			c := statusclient.New(srv.URL, "secret-key")
			_, resp, err := c.GetProject(context.Background(), "p1")
			var apiErr *statusclient.Error
			is.True(errors.As(err, &apiErr)) // every non-2xx answer is an *Error
			is.True(resp != nil)             // with the Response of the answer
			is.Equal(apiErr.Response, resp)  // on the *Error too
			is.Equal(resp.StatusCode, tt.status)
			is.Equal(apiErr.StatusCode, tt.want.StatusCode)
			is.Equal(apiErr.Code, tt.want.Code)
			is.Equal(apiErr.Message, tt.want.Message)
			is.Equal(apiErr.Param, tt.want.Param)
			is.Equal(apiErr.RequestID, tt.want.RequestID)
			is.True(!strings.Contains(err.Error(), "secret-key")) // the key never shows in an error
		})
	}
}

func TestFakeAPIErrors(t *testing.T) {
	ctx := context.Background()
	fake := &fakeAPI{key: "good", milestones: map[string][]statusclient.Milestone{}}
	srv := httptest.NewServer(fake)
	defer srv.Close()

	tests := []struct {
		name  string
		key   string
		call  func(c *statusclient.Client) error
		code  statusclient.ErrorCode
		param string
	}{
		{"wrong key", "bad", func(c *statusclient.Client) error {
			_, _, err := c.ListProjects(ctx, statusclient.ProjectListOptions{})
			return err
		}, statusclient.CodeUnauthorized, ""},
		{"limit over 100", "good", func(c *statusclient.Client) error {
			_, _, err := c.ListInvoices(ctx, statusclient.InvoiceListOptions{ListOptions: statusclient.ListOptions{Limit: 101}})
			return err
		}, statusclient.CodeInvalidParameter, "limit"},
		{"unknown project", "good", func(c *statusclient.Client) error {
			_, _, err := c.GetProject(ctx, "nope")
			return err
		}, statusclient.CodeNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := tt.call(statusclient.New(srv.URL+"/v1", tt.key))
			var apiErr *statusclient.Error
			is.True(errors.As(err, &apiErr))
			is.Equal(apiErr.Code, tt.code)
			is.Equal(apiErr.Param, tt.param)
			is.True(apiErr.RequestID != "") // the request id is there to quote
		})
	}
}

func TestErrorCodeOf(t *testing.T) {
	is := is.New(t)
	srv, _ := scriptedServer(t, []refusal{{429, "120"}})
	_, _, err := statusclient.New(srv.URL, "k").GetProject(context.Background(), "p1")
	is.Equal(statusclient.ErrorCodeOf(err), statusclient.CodeRateLimited)                            // an *Error
	is.Equal(statusclient.ErrorCodeOf(fmt.Errorf("syncing: %w", err)), statusclient.CodeRateLimited) // found through wrapping
	is.Equal(statusclient.ErrorCodeOf(nil), statusclient.ErrorCode(""))                              // no error, no code
	is.Equal(statusclient.ErrorCodeOf(context.Canceled), statusclient.ErrorCode(""))                 // not an API error

	_, _, err = statusclient.New("not a URL", "k").GetProject(context.Background(), "p1")
	is.True(err != nil)
	is.Equal(statusclient.ErrorCodeOf(err), statusclient.ErrorCode("")) // a bad base URL is not an answer of the API
}
