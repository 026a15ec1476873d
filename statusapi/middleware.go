package statusapi

import (
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
)

// apiFunc is the handler of an authenticated route (see api, unmetered). It
// returns its response or an error, and writes nothing: write
// (conditional.go) writes the response, fail (errors.go) the error.
type apiFunc func(r *http.Request, c caller) (response, error)

// caller is who made the request, and the rate limit's decision on it
// (when limited, a 304 is refunded).
type caller struct {
	auth.Principal
	limit ratelimit.Decision
}

// errHidden answers an item of a project the caller's key may not see:
// the store's not found, so that it answers exactly as another
// organization's id (404 NOT_FOUND, "no such item").
var errHidden = fmt.Errorf("statusapi: outside the key's projects: %w", store.ErrNotFound)

// sees returns errHidden unless the caller may see the items of project.
func (c caller) sees(project string) error {
	if !c.AllowsProject(project) {
		return errHidden
	}
	return nil
}

// seesOptional is sees for an item that may belong to no project (nil),
// which a key restricted to projects never sees.
func (c caller) seesOptional(project *string) error {
	switch {
	case c.ProjectIDs == nil:
		return nil
	case project == nil:
		return errHidden
	}
	return c.sees(*project)
}

// api wraps fn, a route that reads the store, in steps 4 and 5 of the
// order of processing (authentication and the key's restriction, rate
// limit), under the request timeout. scope is the one the route needs,
// declared in the table of routes; "" for none.
func (h *handler) api(scope auth.Scope, fn apiFunc) http.HandlerFunc {
	return h.keyed(fn, h.admit(scope))
}

// admission admits an authenticated caller p to a route, or refuses it,
// and returns the rate limit's decision on it. It takes and returns
// values, not a *caller: a pointer given to a function value would move
// every request's caller to the heap.
type admission func(w http.ResponseWriter, r *http.Request, p auth.Principal) (ratelimit.Decision, error)

// admit returns the admission of a route that needs scope: the key's
// restriction, then the rate limit (steps 4 and 5 after authentication).
func (h *handler) admit(scope auth.Scope) admission {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) (ratelimit.Decision, error) {
		if err := h.authorize(w, r, p, scope); err != nil {
			return ratelimit.Decision{}, err
		}
		d, err := h.rateLimit(w, r, p)
		if info := infoOf(w); info != nil {
			info.RateLimit = d
		}
		return d, err
	}
}

// unmetered wraps fn, a route that reads no store and must cost nothing
// (GET /v1/rate_limit), in authentication only: no scope, no rate limit.
func (h *handler) unmetered(fn apiFunc) http.HandlerFunc {
	return h.keyed(fn, nil)
}

// keyed wraps fn in authentication and then admit, when not nil, under
// the request timeout, and writes what fn returns or the first error.
func (h *handler) keyed(fn apiFunc, admit admission) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := withRequestTimeout(r.Context(), h.cfg.timeout)
		defer cancel()
		r = r.WithContext(ctx)
		c, err := h.callerOf(w, r, admit)
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

// callerOf authenticates r, notes who called in the RequestInfo, and runs
// admit, when not nil.
func (h *handler) callerOf(w http.ResponseWriter, r *http.Request, admit admission) (caller, error) {
	var c caller
	var err error
	if p, ok := internalPrincipal(r); ok { // a route an MCP tool runs (mcp.go)
		c.Principal = p
		if admit != nil {
			c.limit, err = admit(w, r, p)
		}
		return c, err
	}
	c.Principal, err = h.authenticate(r)
	if err != nil {
		return c, err
	}
	if c.Sandbox {
		// From here on the caller is its sandbox organization: every
		// store read, the rate limit (a budget of its own, on the live
		// account's plan), the response cache, events and webhooks key
		// on it, so sandbox and live data never mix.
		c.Org.ID = readOrgID(c.Principal)
		w.Header().Set(SandboxHeader, "true")
		h.checkSandbox(w, r, c.Org.ID)
	}
	if tw, ok := w.(*trackingWriter); ok {
		if tw.info != nil {
			tw.info.OrgID, tw.info.KeyID, tw.info.Subject, tw.info.Plan = c.Org.ID, c.KeyID, c.Subject, string(c.Org.Plan)
		}
		tw.keyed = true
	}
	if admit != nil {
		c.limit, err = admit(w, r, c.Principal)
	}
	return c, err
}

// readOrgID returns the organization p reads: its own, or its sandbox
// for a sandbox key.
func readOrgID(p auth.Principal) string {
	if p.Sandbox {
		return auth.SandboxOrgID(p.Org.ID)
	}
	return p.Org.ID
}

// SandboxHeader is set to "true" on every answer to a sandbox key (see
// auth.Keys.MintSandbox), errors included once the key is known; it is
// absent from answers to live keys.
const SandboxHeader = "X-Sandbox"

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

// authorize applies p's restriction (see auth.Restriction) to a route that
// reads the store and needs scope: a route outside p's scopes is 403
// INSUFFICIENT_SCOPE, with WWW-Authenticate naming the scope (RFC 6750).
// It comes before the rate limit, so it costs nothing. The projects of a
// restricted key are the store's to apply (every store.Store honours
// OnlyProjects).
func (h *handler) authorize(w http.ResponseWriter, r *http.Request, p auth.Principal, scope auth.Scope) error {
	if scope != "" && !p.Allows(scope) {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="%s"`, scope))
		return envelope.Errorf(envelope.InsufficientScope, "this key may not read this route: it needs the scope %s", scope)
	}
	return nil
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
	if _, ok := internalPrincipal(r); ok {
		return ratelimit.Decision{}, nil // the request to /v1/mcp paid (mcp.go)
	}
	d, err := h.lim.Allow(r.Context(), p)
	if err != nil {
		return d, err
	}
	// Windows run on the limiter store's clock, the real one: Retry-After
	// and RateLimit's t= count from the real time, whatever WithClock says.
	// A decision without a limit writes no header: it needs no clock.
	if d.Limited {
		d.WriteHeaders(w.Header(), time.Now())
	}
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
