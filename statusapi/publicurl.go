package statusapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/clientstatus/clientstatus/envelope"
)

// ErrUnknownHost is what a WithPublicURLFunc function returns (wrapped or
// not) for a request the portal serves no API at, such as a Host header
// no white-label client owns: the handler answers it 404 NOT_FOUND, as a
// path that is no route, without logging it.
var ErrUnknownHost = errors.New("statusapi: no API is served at this host")

// WithPublicURLFunc sets a function that names, for each request, the
// address at which its client reaches the handler (as WithPublicURL's),
// for a portal that serves several domains: every link of the answer and
// the response cache's key are built from it. It decides which hosts are
// served: it must look r.Host up in the portal's own list, never copy it,
// and return ErrUnknownHost for any other (404). It runs on every request,
// concurrently. New panics when WithPublicURL is given too; nil keeps the
// default. docs/handler.md, "Public URL", says more.
func WithPublicURLFunc(fn func(r *http.Request) (*url.URL, error)) Option {
	return func(c *config) { c.publicURLFunc = fn }
}

// checkPublicURL reports a public URL that links cannot be built on.
func checkPublicURL(u *url.URL) error {
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery || u.Opaque != "" || u.User != nil {
		return errors.New("want an absolute http(s) URL without user, query or fragment, such as https://portal.example.com/api")
	}
	return nil
}

// publicBaseKey is the context key of the public URL WithPublicURLFunc
// named for a request.
type publicBaseKey struct{}

// resolvePublicURL runs WithPublicURLFunc's function for r, when there is
// one, and returns r carrying its answer for publicURL; or the error to
// answer the request with.
func (h *handler) resolvePublicURL(r *http.Request) (*http.Request, error) {
	if h.cfg.publicURLFunc == nil {
		return r, nil
	}
	u, err := h.cfg.publicURLFunc(r)
	if errors.Is(err, ErrUnknownHost) {
		return r, envelope.New(envelope.NotFound, "no API is served at this host")
	}
	if err != nil {
		return r, fmt.Errorf("statusapi: public URL of the request: %w", err)
	}
	if err := checkPublicURL(u); err != nil {
		return r, fmt.Errorf("statusapi: the WithPublicURLFunc function answered %q: %v", u.Redacted(), err)
	}
	base := strings.TrimRight(u.String(), "/")
	return r.WithContext(context.WithValue(r.Context(), publicBaseKey{}, base)), nil
}

// publicURL is the address links to the handler start with (without
// /v1): WithPublicURL; or what WithPublicURLFunc named for r; or else,
// by default, the mount prefix alone ("/api", or "" at the root), so
// that links are root-relative: the path the request line has before
// the path the handler sees (http.StripPrefix leaves RequestURI as it
// came). The Host header never goes into a link: a client could set it
// to anything. Nor does a prefix that a browser would read as a host
// ("//evil.example").
func (h *handler) publicURL(r *http.Request) string {
	if h.cfg.publicURL != "" {
		return h.cfg.publicURL
	}
	if base, ok := r.Context().Value(publicBaseKey{}).(string); ok {
		return base
	}
	return mountPrefix(r)
}

// mountPrefix is what r's request line has before the path the handler
// sees: "/api" under http.StripPrefix("/api", h), "" otherwise, and ""
// when a proxy or middleware rewrote the path in any other way.
func mountPrefix(r *http.Request) string {
	path, _, _ := strings.Cut(r.RequestURI, "?")
	if !strings.HasPrefix(path, "/") {
		// The absolute form ("http://host/api/v1/..."), which servers
		// accept too: its path alone.
		_, rest, ok := strings.Cut(path, "://")
		i := strings.IndexByte(rest, '/')
		if !ok || i < 0 {
			return ""
		}
		path = rest[i:]
	}
	prefix := strings.TrimSuffix(path, r.URL.EscapedPath())
	if prefix == path { // not a suffix: the path was rewritten otherwise
		return ""
	}
	if strings.HasPrefix(prefix, "//") || strings.ContainsRune(prefix, '\\') {
		return "" // would read as a host ("//evil.example"): never one of ours
	}
	return prefix
}
