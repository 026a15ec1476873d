package statusclient

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Deprecation is what an answer says when the request used something the
// API has deprecated: its Deprecation (RFC 9745), Sunset (RFC 8594) and
// Link rel="deprecation" headers. The client keeps working until the
// sunset; the notice says what to use instead.
type Deprecation struct {
	Since  time.Time // when it was deprecated; zero when the header was unreadable
	Sunset time.Time // when it may stop working; zero when the server named none
	Notice string    // the URL of the notice; "" when the server linked none
}

// parseDeprecation reads the deprecation headers of h, nil without a
// Deprecation header.
func parseDeprecation(h http.Header) *Deprecation {
	v := strings.TrimSpace(h.Get("Deprecation"))
	if v == "" {
		return nil
	}
	d := &Deprecation{}
	if secs, err := strconv.ParseInt(strings.TrimPrefix(v, "@"), 10, 64); err == nil && strings.HasPrefix(v, "@") {
		d.Since = time.Unix(secs, 0).UTC()
	}
	if t, err := http.ParseTime(h.Get("Sunset")); err == nil {
		d.Sunset = t.UTC()
	}
	for _, value := range h.Values("Link") {
		for link := range strings.SplitSeq(value, ",") {
			target, params, ok := strings.Cut(strings.TrimSpace(link), ";")
			if !ok || !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
				continue
			}
			for p := range strings.SplitSeq(params, ";") {
				name, val, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(name, "rel") && strings.EqualFold(strings.Trim(val, `"`), "deprecation") && d.Notice == "" {
					d.Notice = strings.TrimSuffix(strings.TrimPrefix(target, "<"), ">")
				}
			}
		}
	}
	return d
}

// warnDeprecated logs resp's deprecation once per route of this Client
// (path, after /v1, with its ids as {id}).
func (c *Client) warnDeprecated(path string, resp *Response) {
	if resp == nil || resp.Deprecation == nil {
		return
	}
	route := routeOf(path)
	if _, seen := c.warned.LoadOrStore(route, true); seen {
		return
	}
	d := resp.Deprecation
	args := []any{"route", "GET /v1" + route}
	if !d.Since.IsZero() {
		args = append(args, "deprecated", d.Since.Format(time.DateOnly))
	}
	if !d.Sunset.IsZero() {
		args = append(args, "sunset", d.Sunset.Format(time.DateOnly))
	}
	if d.Notice != "" {
		args = append(args, "notice", d.Notice)
	}
	c.logger.Warn("statusclient: the API deprecated what this request uses; it may stop working at the sunset", args...)
}

// routeOf is path's route: every path of v1 is a collection, then maybe an
// id, then maybe a sub-collection ("/projects/{id}/milestones").
func routeOf(path string) string {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if len(segs) > 1 {
		segs[1] = "{id}"
	}
	return "/" + strings.Join(segs, "/")
}
