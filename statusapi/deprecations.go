package statusapi

import (
	"bytes"
	"encoding/json"
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
type deprecation struct {
	path   string    // the route's pattern, as in the table: "/v1/projects"
	param  string    // a query parameter of the route; "" for the route or a field
	field  string    // a field of its answers, "Schema.property" of the document's components; "" for the route or a parameter
	since  time.Time // the Deprecation header's date
	sunset time.Time // the Sunset header's date: at least MinSunset after since
	notice string    // the absolute URL of the notice, in the Link header
}

// deprecations is the one place where a part of /v1 is declared
// deprecated. Each answer that uses one carries Deprecation, Sunset and
// Link rel="deprecation", and the served OpenAPI document marks it.
// Nothing is deprecated.
var deprecations []deprecation

// withDeprecation declares d too, for the package's tests (export_test.go).
func withDeprecation(d deprecation) Option {
	return func(c *config) { c.deprecations = append(c.deprecations, d) }
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
// cfg whose path is no route of table.
func checkDeprecatedRoutes(table []route, cfg config) error {
	for _, d := range cfg.deprecations {
		found := false
		for _, rt := range table {
			found = found || rt.path == d.path
		}
		if !found {
			return option.Errorf("statusapi", "deprecation", "%s: no such route", d.what())
		}
	}
	return nil
}

// deprecatedHeaders is what an answer that uses deprecated parts carries.
type deprecatedHeaders struct {
	deprecation, sunset, link []string
}

// deprecated wraps next, the handler of the route at path, so that every
// answer that uses one of ds carries its headers: all of them for the route
// or a field, those of a parameter when the request names it. The earliest
// dates win; each notice gets its Link. next is returned as it is when
// nothing of the route is deprecated.
func deprecated(path string, ds []deprecation, next http.HandlerFunc) http.HandlerFunc {
	var always, params []deprecation
	for _, d := range ds {
		switch {
		case d.path != path:
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
	since, sunset := ds[0].since, ds[0].sunset
	var links []string
	for _, d := range ds {
		if d.since.Before(since) {
			since = d.since
		}
		if d.sunset.Before(sunset) {
			sunset = d.sunset
		}
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

// markDeprecated returns the OpenAPI document doc with ds marked
// `deprecated: true` (a route's operations with their x-sunset date too; a
// parameter inlined into its route's operations; a field in its schema),
// keys in their order. doc is returned as it is without ds, or when it
// cannot be read or lacks what a deprecation names.
func markDeprecated(doc []byte, ds []deprecation) []byte {
	if len(ds) == 0 {
		return doc
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	root, ok := v.(*object)
	if err != nil || !ok {
		return doc
	}
	for _, d := range ds {
		if !root.mark(d) {
			return doc
		}
	}
	compact, err := json.Marshal(root)
	if err != nil {
		return doc
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return doc
	}
	return out.Bytes()
}

// mark marks d in the document root, reporting whether it found its place.
func (root *object) mark(d deprecation) bool {
	if d.field != "" {
		schema, prop, _ := strings.Cut(d.field, ".")
		p, ok := root.path("components", "schemas", schema, "properties", prop)
		if !ok {
			return false
		}
		p.set("deprecated", true)
	}
	item, ok := root.path("paths", d.path)
	if !ok {
		return false
	}
	marked := false
	for _, method := range []string{"get", "head"} {
		op, ok := item.path(method)
		if !ok {
			continue
		}
		root.documentHeaders(op)
		if d.field != "" {
			continue
		}
		if d.param == "" {
			op.set("deprecated", true)
			op.set("x-sunset", d.sunset.UTC().Format(time.DateOnly))
			marked = true
			continue
		}
		params, _ := op.get("parameters").([]any)
		for i, p := range params {
			po, ok := p.(*object)
			if !ok {
				continue
			}
			if ref, ok := po.get("$ref").(string); ok {
				name, found := strings.CutPrefix(ref, "#/components/parameters/")
				target, ok := root.path("components", "parameters", name)
				if !found || !ok {
					continue
				}
				po = target.clone()
			}
			if po.get("name") == d.param {
				po.set("deprecated", true)
				params[i] = po
				marked = true
			}
		}
	}
	return marked || d.field != ""
}

// deprecationHeaders document the headers of deprecations.go in the served
// document, on the responses of the operations that carry them.
var deprecationHeaders = map[string]string{
	"Deprecation": "When what this request uses was deprecated (RFC 9745), as @ and Unix seconds.",
	"Sunset":      "When what this request uses may stop working (RFC 8594): at least 180 days after the deprecation.",
	"Link":        "The notice of the deprecation, with rel=\"deprecation\".",
}

// documentHeaders adds the deprecation headers to the responses of op, a
// shared response inlined so that only op's own change.
func (root *object) documentHeaders(op *object) {
	responses, ok := op.path("responses")
	if !ok {
		return
	}
	for i, v := range responses.vals {
		res, ok := v.(*object)
		if !ok {
			continue
		}
		if ref, ok := res.get("$ref").(string); ok {
			name, found := strings.CutPrefix(ref, "#/components/responses/")
			target, ok := root.path("components", "responses", name)
			if !found || !ok {
				continue
			}
			res = target.clone()
		} else {
			res = res.clone()
		}
		headers, ok := res.get("headers").(*object)
		if ok {
			headers = headers.clone()
		} else {
			headers = &object{}
		}
		for _, name := range []string{"Deprecation", "Sunset", "Link"} {
			if headers.get(name) == nil {
				h := &object{}
				h.set("description", deprecationHeaders[name])
				s := &object{}
				s.set("type", "string")
				h.set("schema", s)
				headers.set(name, h)
			}
		}
		res.set("headers", headers)
		responses.vals[i] = res
	}
}

// object is a JSON object that keeps the order of its keys.
type object struct {
	keys []string
	vals []any
}

func (o *object) get(key string) any {
	for i, k := range o.keys {
		if k == key {
			return o.vals[i]
		}
	}
	return nil
}

// set replaces key's value, or adds key last.
func (o *object) set(key string, v any) {
	for i, k := range o.keys {
		if k == key {
			o.vals[i] = v
			return
		}
	}
	o.keys, o.vals = append(o.keys, key), append(o.vals, v)
}

// path walks keys down from o, each step an object.
func (o *object) path(keys ...string) (*object, bool) {
	for _, k := range keys {
		next, ok := o.get(k).(*object)
		if !ok {
			return nil, false
		}
		o = next
	}
	return o, true
}

// clone copies o's own keys (its values are shared).
func (o *object) clone() *object {
	return &object{keys: append([]string(nil), o.keys...), vals: append([]any(nil), o.vals...)}
}

// MarshalJSON writes o with its keys in order.
func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(o.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// decodeOrdered reads the next JSON value of dec, objects as *object.
func decodeOrdered(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t {
	case json.Delim('{'):
		o := &object{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			o.keys, o.vals = append(o.keys, k.(string)), append(o.vals, v)
		}
		_, err := dec.Token() // }
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token() // ]
		return a, err
	}
	return t, nil
}
