package statusapi

import (
	"context"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/ratelimit"
)

// apiFunc is the handler of an authenticated, rate-limited route. It
// returns its response or an error, and writes nothing: write
// (conditional.go) writes the response, fail (errors.go) the error.
type apiFunc func(r *http.Request, c caller) (response, error)

// caller is who made the request, and the rate limit's decision on it
// (when limited, a 304 is refunded).
type caller struct {
	auth.Principal
	limit ratelimit.Decision
}

// api wraps fn in steps 4 and 5 of the order of processing (authentication,
// rate limit), under the request timeout.
func (h *handler) api(fn apiFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), h.cfg.timeout)
		defer cancel()
		r = r.WithContext(ctx)
		var c caller
		var err error
		c.Principal, err = h.authenticate(r)
		if err == nil {
			if info := infoOf(w); info != nil {
				info.OrgID, info.KeyID, info.Subject, info.Plan = c.Org.ID, c.KeyID, c.Subject, string(c.Org.Plan)
			}
			c.limit, err = h.rateLimit(w, r, c.Principal)
			if info := infoOf(w); info != nil {
				info.RateLimit = c.limit
			}
		}
		var res response
		if err == nil {
			res, err = fn(r, c)
		}
		if err != nil {
			h.fail(w, r, err)
			return
		}
		h.write(w, r, c, res)
	}
}

// authenticate resolves the request's bearer credential to a Principal
// that may use the API.
func (h *handler) authenticate(r *http.Request) (auth.Principal, error) {
	cred, ok := bearer(r.Header.Values("Authorization"))
	if !ok {
		return auth.Principal{}, envelope.New(envelope.Unauthorized,
			`send the API key as "Authorization: Bearer <key>"`)
	}
	p, err := h.keys.Resolve(r.Context(), cred)
	if err != nil {
		return auth.Principal{}, err
	}
	if !p.Org.CanUseAPI() {
		return auth.Principal{}, envelope.New(envelope.Forbidden,
			"API access needs an active retainer and API access enabled on the account; contact the service operator")
	}
	return p, nil
}

// bearer returns the credential of exactly one "Authorization: Bearer
// <credential>" header: the scheme in any case, one space, then one
// credential without spaces.
func bearer(values []string) (string, bool) {
	if len(values) != 1 {
		return "", false
	}
	scheme, cred, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || cred == "" || strings.ContainsAny(cred, " \t") {
		return "", false
	}
	return cred, true
}

// rateLimit takes one request from p's organization's budget, writes the
// rate-limit headers and reports whether a limit applied. A Decision that
// is not Limited lets the request through whatever its Allowed says.
func (h *handler) rateLimit(w http.ResponseWriter, r *http.Request, p auth.Principal) (ratelimit.Decision, error) {
	d, err := h.lim.Allow(r.Context(), p)
	if err != nil {
		return d, err
	}
	// Windows run on the limiter store's clock, the real one: Retry-After
	// and RateLimit's t= count from the real time, whatever WithClock says.
	d.WriteHeaders(w.Header(), time.Now())
	if d.Limited && !d.Allowed {
		return d, envelope.Errorf(envelope.RateLimited,
			"rate limit of %d requests per %s reached; retry after the number of seconds in Retry-After",
			d.Limit, windowName(d))
	}
	return d, nil
}

// windowName says "minute" for the plans' one-minute windows.
func windowName(d ratelimit.Decision) string {
	if d.Window == time.Minute {
		return "minute"
	}
	return d.Window.String()
}

// recover answers a panic of the handler with 500 INTERNAL, or aborts the
// connection when the response had already started. The panic value and
// stack are logged with the request id, never sent.
func (h *handler) recover(w *trackingWriter, r *http.Request) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	h.cfg.logger.ErrorContext(r.Context(), "statusapi: panic serving request",
		"request_id", w.Header().Get(envelope.RequestIDHeader),
		"method", r.Method, "path", r.URL.Path,
		"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	if w.started {
		panic(http.ErrAbortHandler)
	}
	envelope.WriteError(w, r, envelope.New(envelope.Internal, "internal error"))
}
