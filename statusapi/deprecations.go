package statusapi

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/option"
)

// MinSunset is the shortest time between the deprecation of a part of /v1
// and its sunset: a deprecation with a nearer sunset is refused by New
// and Validate.
const MinSunset = 180 * 24 * time.Hour

// deprecation declares one deprecated part of /v1: a route, a query
// parameter of a route, or a field of a route's answers (docs/compatibility.md).
// It is a field of its route (route.deprecations), declared beside the
// route: the headers middleware (deprecated) and the OpenAPI document
// read it there.
type deprecation struct {
	path   string    // the route's pattern, as in the table: "/v1/projects"
	param  string    // a query parameter of the route; "" for the route or a field
	field  string    // a field of its answers, "Schema.property" of the document's components; "" for the route or a parameter
	since  time.Time // the Deprecation header's date
	sunset time.Time // the Sunset header's date: at least MinSunset after since
	notice string    // the absolute URL of the notice, in the Link header
}

// what names d in messages.
func (d deprecation) what() string {
	switch {
	case d.param != "":
		return "parameter " + d.param + " of " + d.path
	case d.field != "":
		return "field " + d.field + " of " + d.path
	}
	return "route " + d.path
}

// check reports what makes d unusable, or nil.
func (d deprecation) check() error {
	if !strings.HasPrefix(d.path, "/v1/") {
		return fmt.Errorf("%s: the path is no /v1 route", d.what())
	}
	if d.param != "" && d.field != "" {
		return fmt.Errorf("%s: a parameter or a field, not both", d.what())
	}
	if d.field != "" {
		if schema, prop, ok := strings.Cut(d.field, "."); !ok || schema == "" || prop == "" {
			return fmt.Errorf("%s: want Schema.property", d.what())
		}
	}
	if d.since.IsZero() {
		return fmt.Errorf("%s: no deprecation date", d.what())
	}
	if d.sunset.Before(d.since.Add(MinSunset)) {
		return fmt.Errorf("%s: sunset %s is less than %d days after the deprecation (%s)",
			d.what(), d.sunset.UTC().Format(time.DateOnly), MinSunset/(24*time.Hour), d.since.UTC().Format(time.DateOnly))
	}
	u, err := url.Parse(d.notice)
	if err != nil || !u.IsAbs() || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("%s: notice %q is no absolute http(s) URL", d.what(), d.notice)
	}
	return nil
}

// checkDeprecatedRoutes reports, as an *option.Error, a deprecation of
// cfg whose path is no route of table, or one of table that check
// refuses.
func checkDeprecatedRoutes(table []route, cfg config) error {
	for _, d := range cfg.deprecations {
		if !slices.ContainsFunc(table, func(rt route) bool { return rt.path == d.path }) {
			return option.Errorf("statusapi", "deprecation", "%s: no such route", d.what())
		}
	}
	for _, rt := range table {
		for _, d := range rt.deprecations {
			if err := d.check(); err != nil {
				return option.Errorf("statusapi", "deprecation", "%v", err)
			}
		}
	}
	return nil
}

// deprecate is rt with ds, parts of it, deprecated.
func (rt route) deprecate(ds ...deprecation) route {
	for _, d := range ds {
		d.path = rt.path
		rt.deprecations = append(rt.deprecations[:len(rt.deprecations):len(rt.deprecations)], d)
	}
	return rt
}

// deprecatedHeaders is what an answer that uses deprecated parts carries.
type deprecatedHeaders struct {
	deprecation, sunset, link []string
}

// deprecated wraps next, the handler of a route whose parts ds are
// deprecated, so that every answer that uses one of ds carries its
// headers: all of them for the route or a field, those of a parameter
// when the request names it. The earliest dates win; each notice gets
// its Link. next is returned as it is when nothing of the route is
// deprecated.
func deprecated(ds []deprecation, next http.HandlerFunc) http.HandlerFunc {
	var always, params []deprecation
	for _, d := range ds {
		switch {
		case d.param != "":
			params = append(params, d)
		default:
			always = append(always, d)
		}
	}
	if len(always) == 0 && len(params) == 0 {
		return next
	}
	fixed := headersOf(always)
	return func(w http.ResponseWriter, r *http.Request) {
		hs := fixed
		if len(params) > 0 {
			used := always
			q := r.URL.Query()
			for _, d := range params {
				if q.Has(d.param) {
					used = append(used[:len(used):len(used)], d)
				}
			}
			if len(used) > len(always) {
				hs = headersOf(used)
			}
		}
		if hs != nil {
			hd := w.Header()
			hd["Deprecation"] = hs.deprecation
			hd["Sunset"] = hs.sunset
			hd["Link"] = append(hd["Link"], hs.link...)
		}
		next(w, r)
	}
}

// headersOf answers the headers of ds, nil for none: Deprecation (RFC
// 9745) and Sunset (RFC 8594) of the earliest dates, a Link
// rel="deprecation" for each notice.
func headersOf(ds []deprecation) *deprecatedHeaders {
	if len(ds) == 0 {
		return nil
	}
	since := slices.MinFunc(ds, func(a, b deprecation) int { return a.since.Compare(b.since) }).since
	sunset := slices.MinFunc(ds, func(a, b deprecation) int { return a.sunset.Compare(b.sunset) }).sunset
	var links []string
	for _, d := range ds {
		link := "<" + d.notice + `>; rel="deprecation"; type="text/html"`
		if !slices.Contains(links, link) {
			links = append(links, link)
		}
	}
	return &deprecatedHeaders{
		deprecation: []string{"@" + strconv.FormatInt(since.Unix(), 10)},
		sunset:      []string{sunset.UTC().Format(http.TimeFormat)},
		link:        links,
	}
}
