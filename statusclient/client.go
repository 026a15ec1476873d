package statusclient

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clientstatus/clientstatus/option"
)

// Client calls the /v1 API with one API key. Make one with New and share it:
// it is safe for concurrent use.
type Client struct {
	base    string // the API root, ending in /v1, without a trailing slash
	baseErr error  // set when the base URL is unusable: every call returns it
	apiKey  string
	warned  sync.Map // the routes whose deprecation was logged
	config
}

// New returns a Client for the API at baseURL, authenticating with apiKey
// (sent as "Authorization: Bearer <apiKey>", never logged or put in an
// error).
//
// baseURL is the API's base address, which ends with /v1, as in
// "https://portal.example.com/api/v1". An address without the /v1 segment
// ("https://portal.example.com/api") is taken as the root under which /v1 is
// mounted, and /v1 is appended. A baseURL that is not an absolute http or
// https URL, or that carries a query or a fragment, does not panic: it is
// data, perhaps from a configuration file, so every call of the Client
// returns an error saying so.
//
// New panics with the *option.Error that Validate reports for an option
// given a value that no default stands for (see the package
// documentation): that is a programming error.
func New(baseURL, apiKey string, opts ...Option) *Client {
	c := &Client{apiKey: apiKey, config: defaultConfig()}
	option.Apply(&c.config, opts)
	if err := c.config.check.Err(); err != nil {
		panic(err)
	}
	c.base, c.baseErr = normalizeBase(baseURL)
	return c
}

func normalizeBase(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("statusclient: base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("statusclient: base URL %q is not an absolute http(s) URL", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("statusclient: base URL %q must not carry a query or a fragment", raw)
	}
	s := strings.TrimRight(u.String(), "/")
	if !strings.HasSuffix(s, "/v1") {
		s += "/v1"
	}
	return s, nil
}

// envelope is the body of a success response.
type envelope[T any] struct {
	Data T    `json:"data"`
	Meta Meta `json:"meta"`
}

// ErrNotModified is returned by a list call made with IfNoneMatch when the
// server answers 304 Not Modified: the list is as it was when the server
// sent that ETag. No items come with it; the Response does, with the ETag.
// A server that sends no ETag never answers 304: Response.ETag is then ""
// and IfNoneMatch stays empty.
var ErrNotModified = errors.New("statusclient: not modified")

// request is one GET of the API.
type request struct {
	path        string     // after /v1
	query       url.Values // nil for none
	ifNoneMatch string     // an ETag, "" for an unconditional request
}

// get sends the request, retrying as WithRetry says, and decodes the success
// envelope. The Response is that of the last answer, nil when none came. A
// 304 is ErrNotModified; any other non-2xx answer is returned as an *Error.
func get[T any](ctx context.Context, c *Client, r request) (envelope[T], *Response, error) {
	var out envelope[T]
	if c.baseErr != nil {
		return out, nil, c.baseErr
	}
	target := c.base + r.path
	if len(r.query) > 0 {
		target += "?" + r.query.Encode()
	}
	for attempt := 1; ; attempt++ {
		res, err := c.send(ctx, target, r.ifNoneMatch)
		if err != nil {
			return out, nil, err
		}
		resp := newResponse(res)
		c.warnDeprecated(r.path, resp)
		switch {
		case res.StatusCode == http.StatusNotModified:
			closeBody(res)
			resp.ETag = cmp.Or(resp.ETag, r.ifNoneMatch)
			return out, resp, ErrNotModified
		case res.StatusCode >= 200 && res.StatusCode < 300:
			err := json.NewDecoder(res.Body).Decode(&out)
			closeBody(res)
			if err != nil {
				return out, resp, fmt.Errorf("statusclient: GET %s: decoding the response: %w", r.path, err)
			}
			return out, resp, nil
		}
		apiErr := readError(res, resp)
		closeBody(res)
		wait, retry := c.retryWait(apiErr, attempt)
		if !retry {
			return out, resp, apiErr
		}
		if err := c.sleep(ctx, wait); err != nil {
			return out, resp, fmt.Errorf("statusclient: GET %s: waiting to retry after %w: %w", r.path, apiErr, err)
		}
	}
}

func (c *Client) send(ctx context.Context, target, ifNoneMatch string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, fmt.Errorf("statusclient: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	req.Header.Set("Accept", "application/json")
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", ifNoneMatch)
	}
	req.Header.Set("User-Agent", c.userAgent)
	res, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("statusclient: %w", err)
	}
	return res, nil
}

// closeBody drains a little of what is left, so the connection can be
// reused, and closes the body.
func closeBody(res *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	_ = res.Body.Close()
}

// retryWait says whether to send again after e, the answer to the
// attempt-th try, and how long to wait first.
func (c *Client) retryWait(e *Error, attempt int) (time.Duration, bool) {
	if e.StatusCode != http.StatusTooManyRequests && e.StatusCode != http.StatusServiceUnavailable {
		return 0, false
	}
	if attempt >= c.maxAttempts {
		return 0, false
	}
	if !e.hasRetryAfter {
		return min(time.Second<<min(attempt-1, 10), c.maxWait), true
	}
	if e.RetryAfter > c.maxWait {
		return 0, false // retrying sooner than asked would only be refused again
	}
	return e.RetryAfter, true
}

// parseRetryAfter reads a Retry-After field: delay-seconds or an HTTP-date
// (RFC 9110, section 10.2.3).
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		// At most a day: avoids overflow; far beyond any sane maxWait.
		return time.Duration(min(secs, int64(24*time.Hour/time.Second))) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// errEmptyID is returned, without a request, for a route called with an
// empty id: the server could only answer 404.
var errEmptyID = errors.New("statusclient: empty id")

// itemPath is prefix + "/" + the escaped id; id may hold any character.
func itemPath(prefix, id string) (string, error) {
	if id == "" {
		return "", errEmptyID
	}
	return prefix + "/" + url.PathEscape(id), nil
}
