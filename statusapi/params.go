package statusapi

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/store"
)

// The query parameters of the contract.
const (
	paramPage         = "page"
	paramLimit        = "limit"
	paramStatus       = "status"
	paramProjectID    = "projectId"
	paramDueBefore    = "dueBefore"
	paramUpdatedSince = "updatedSince"
	paramSince        = "since"
	paramType         = "type"
	paramThreadID     = "threadId"
	paramAfter        = "after"
)

// timestampLayout is the one format of the contract's timestamps, in
// parameters too: RFC 3339 in UTC with Z, whole seconds.
const timestampLayout = "2006-01-02T15:04:05Z"

// parseTimestamp parses a timestamp parameter in the contract's one
// format; anything else is 400 INVALID_PARAMETER naming it.
func parseTimestamp(name, v string) (time.Time, error) {
	t, err := time.Parse(timestampLayout, v)
	if err != nil || t.Format(timestampLayout) != v {
		return time.Time{}, envelope.InvalidParam(name,
			name+" must be a UTC timestamp with whole seconds, such as 2026-03-01T09:00:00Z")
	}
	return t, nil
}

// query parses a raw query string strictly: every name must be one of
// allowed, given once, with a non-empty value. Names and values are
// case-sensitive. Any other query is 400 INVALID_PARAMETER naming the
// parameter, so that a typo never silently widens a result.
func query(raw string, allowed ...string) (map[string]string, error) {
	out := make(map[string]string)
	if raw == "" {
		return out, nil
	}
	for _, pair := range strings.Split(raw, "&") {
		if pair == "" {
			continue // "a=1&&b=2": an empty pair names nothing
		}
		rawName, rawValue, _ := strings.Cut(pair, "=")
		name, err1 := url.QueryUnescape(rawName)
		value, err2 := url.QueryUnescape(rawValue)
		if err1 != nil || err2 != nil || strings.Contains(pair, ";") {
			return nil, envelope.InvalidParam(rawName, "the query string is malformed: use name=value pairs separated by &, percent-encoded")
		}
		if !slices.Contains(allowed, name) {
			return nil, envelope.InvalidParam(name, unknownParam(name, allowed))
		}
		if _, twice := out[name]; twice {
			return nil, envelope.InvalidParam(name, fmt.Sprintf("%s is given more than once", name))
		}
		if value == "" {
			return nil, envelope.InvalidParam(name, fmt.Sprintf("%s is empty; leave it out for the default", name))
		}
		out[name] = value
	}
	return out, nil
}

func unknownParam(name string, allowed []string) string {
	if len(allowed) == 0 {
		return fmt.Sprintf("unknown parameter %q: this route takes no query parameters", name)
	}
	return fmt.Sprintf("unknown parameter %q: this route accepts %s", name, strings.Join(allowed, ", "))
}

// noParams refuses any query parameter, for routes that take none.
func noParams(r *http.Request) error {
	_, err := query(r.URL.RawQuery)
	return err
}

// listParams are the validated parameters of a list route: its filters
// fill the store's (ListFilter, which a route's read passes on whole,
// with the caller's projects) or Status.
type listParams struct {
	store.PageRequest
	store.ListFilter
	Status string            // "" for any
	given  map[string]string // the query as given, for links
	// sync is true for a page of changes (a list asked with updatedSince,
	// a page of deletions): its meta carries syncedThrough and next.
	sync bool
	// bind is the binding of the cursors of the list (see walk), whose
	// position After holds.
	bind [bindingSize]byte
	next *envelope.Cursor // meta.next of the page served, for its link
}

// listSpec says which parameters a list route takes beside page and
// limit.
type listSpec struct {
	// filters are the list's query parameters, each parsed by its own
	// parse (one without is left in listParams.given for the route), in
	// the order of their declaration (see listRoute); page, limit, after
	// and headers among them are taken as listParamsOf takes them. updatedSince is offered only
	// when the store tracks changes (store.Changes), which is what
	// honours it.
	filters []*param
	// cursor is after, the walk by cursor of a list of changes: offered
	// with updatedSince, and to the deletion feed.
	cursor bool
	// expand is expand=project, parsed by expandableList (not by
	// listParamsOf).
	expand bool
}

// since says the list takes updatedSince.
func (spec listSpec) since() bool { return slices.Contains(spec.filters, params.UpdatedSince) }

// listParamsOf parses the parameters of a list route: page and limit,
// spec.filters, each by its parse, and after with updatedSince or
// spec.cursor.
//
// page is a whole number from 1 and limit one from 1 to store.MaxLimit,
// written in plain digits: no sign, no leading zero, no fraction, so each
// value has one spelling. A limit over the maximum is refused, not
// clamped. A page so large that its offset would overflow an int is
// refused too; any smaller page past the end is a valid, empty page.
func listParamsOf(r *http.Request, spec listSpec) (listParams, error) {
	allowed := []string{paramPage, paramLimit}
	for _, f := range spec.filters {
		if f.parse != nil {
			allowed = append(allowed, f.Name)
		}
	}
	since := spec.since()
	if since || spec.cursor {
		allowed = append(allowed, paramAfter)
	}
	for _, f := range spec.filters { // read by the route, named after after
		if f.parse == nil && f.In == "query" && !slices.Contains(allowed, f.Name) {
			allowed = append(allowed, f.Name)
		}
	}
	q, err := query(r.URL.RawQuery, allowed...)
	if err != nil {
		return listParams{}, err
	}
	p := listParams{PageRequest: store.PageRequest{Page: 1, Limit: store.DefaultLimit}, given: q}
	if p.Limit, err = limitOf(q); err != nil {
		return listParams{}, err
	}
	if v, ok := q[paramPage]; ok {
		n, ok := plainInt(v)
		if !ok || n < 1 {
			return listParams{}, envelope.InvalidParam(paramPage, "page must be a whole number from 1, in plain digits")
		}
		if n > math.MaxInt/p.Limit {
			return listParams{}, envelope.InvalidParam(paramPage, "page is too large")
		}
		p.Page = n
	}
	for _, f := range spec.filters {
		if v, ok := q[f.Name]; ok && f.parse != nil {
			if err := f.parse(f, &p, v); err != nil {
				return listParams{}, err
			}
		}
	}
	if _, ok := q[paramAfter]; ok {
		if _, ok := q[paramPage]; ok {
			return listParams{}, envelope.InvalidParam(paramAfter, "after replaces page: give one or the other")
		}
		if since && !p.sync {
			return listParams{}, envelope.InvalidParam(paramAfter, "after continues a walk of changes: give it with the updatedSince of the page that gave it")
		}
	}
	return p, nil
}

// limitOf parses the limit of a query: a whole number from 1 to
// store.MaxLimit, store.DefaultLimit when not given.
func limitOf(q map[string]string) (int, error) {
	v, ok := q[paramLimit]
	if !ok {
		return store.DefaultLimit, nil
	}
	n, ok := plainInt(v)
	if !ok || n < 1 || n > store.MaxLimit {
		return 0, envelope.InvalidParam(paramLimit,
			fmt.Sprintf("limit must be a whole number from 1 to %d", store.MaxLimit))
	}
	return n, nil
}

// plainInt parses a positive decimal integer written in digits only, with
// no leading zero. It reports false for anything else, including values
// that overflow an int.
func plainInt(s string) (int, bool) {
	if s == "" || s[0] == '0' && len(s) > 1 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// meta is the meta of a page of the list p asks for: total, and for a
// page of changes (p.sync) the store's SyncedThrough. A store that tracks
// changes fills it on every such page (store.Page); one that leaves it
// zero breaks that promise, and the key is left out rather than made up:
// no later time is known to be safe. It is left out of every other list
// (see envelope.Meta), even when a store fills it there.
func (p listParams) meta(total int, syncedThrough time.Time) envelope.Meta {
	m := envelope.Meta{Page: p.Page, PerPage: p.Limit, Total: total}
	if p.sync && !syncedThrough.IsZero() {
		m.SyncedThrough = timestamp(syncedThrough)
	}
	return m
}

// links returns the RFC 8288 Link header of a page of a list: first,
// prev (from page 2), next (when a later page has items) and last (page 1
// of an empty list), each the public URL of the same route with the
// request's other parameters as given and the page set. A page of changes
// links by after, not by page: first (the walk from its start) and, when
// items follow, next (after set to meta.next).
func (h *handler) links(r *http.Request, q listParams, total int) string {
	base := h.publicURL(r) + r.URL.EscapedPath() + "?"
	link := func(rel, name, value string) string {
		v := make(url.Values, len(q.given)+1)
		for n, given := range q.given {
			if !q.sync || n != paramPage && n != paramAfter {
				v.Set(n, given)
			}
		}
		if value != "" {
			v.Set(name, value)
		}
		return "<" + base + v.Encode() + `>; rel="` + rel + `"`
	}
	if q.sync {
		out := link("first", paramAfter, "")
		if q.next != nil && q.next.After != "" {
			out += ", " + link("next", paramAfter, q.next.After)
		}
		return out
	}
	last := 1
	if total > 0 {
		last = (total + q.Limit - 1) / q.Limit
	}
	page := func(n int, rel string) string { return link(rel, paramPage, strconv.Itoa(n)) }
	out := []string{page(1, "first")}
	if q.Page > 1 {
		out = append(out, page(q.Page-1, "prev"))
	}
	if q.Page < last {
		out = append(out, page(q.Page+1, "next"))
	}
	return strings.Join(append(out, page(last, "last")), ", ")
}

// strs lists a status type's values as strings, for a status filter.
func strs[S ~string](all []S) []string {
	out := make([]string, len(all))
	for i, s := range all {
		out[i] = string(s)
	}
	return out
}
