package openapigen

import (
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/internal/apidoc"
)

// deprecationHeaders are the headers of an answer that uses a deprecated
// part, documented on the responses of the operations that send them.
var deprecationHeaders = O(
	"Deprecation", O("description", "When what this request uses was deprecated (RFC 9745), as @ and Unix seconds.", "schema", stringSchema()),
	"Sunset", O("description", "When what this request uses may stop working (RFC 8594): at least 180 days after the deprecation.", "schema", stringSchema()),
	"Link", O("description", "The notice of the deprecation, with rel=\"deprecation\".", "schema", stringSchema()),
)

// deprecate marks d in item, the path item of its route, and a field in
// its schema of schs (markField); resps and params are the components.
func deprecate(item Obj, d apidoc.Deprecation, resps, params, schs Obj) {
	if d.Field != "" {
		markField(schs, d.Field)
	}
	for i, kv := range item {
		if kv.Key == "get" || kv.Key == "head" {
			item[i].Value = deprecateOp(kv.Value.(Obj), d, resps, params)
		}
	}
}

// deprecateOp marks d in op, a GET or HEAD of its route: its responses
// inlined with the deprecation headers; the operation deprecated, with
// its x-sunset, or its parameter inlined and deprecated.
func deprecateOp(op Obj, d apidoc.Deprecation, resps, params Obj) Obj {
	rs := op.Get("responses").(Obj)
	out := make(Obj, len(rs))
	for i, kv := range rs {
		r := kv.Value.(Obj)
		if ref, ok := r.Get("$ref").(string); ok {
			r = resps.Get(strings.TrimPrefix(ref, "#/components/responses/")).(Obj)
		}
		hs, _ := r.Get("headers").(Obj)
		hs = append(Obj(nil), hs...)
		for _, h := range deprecationHeaders {
			if hs.Get(h.Key) == nil {
				hs = append(hs, h)
			}
		}
		out[i] = KV{kv.Key, append(Obj(nil), r...).Set("headers", hs)}
	}
	op = append(Obj(nil), op...).Set("responses", out)
	switch {
	case d.Field != "":
	case d.Param == "":
		op = op.Set("deprecated", true).Set("x-sunset", d.Sunset.UTC().Format(time.DateOnly))
	default:
		ps := append([]any(nil), op.Get("parameters").([]any)...)
		for i, p := range ps {
			po := p.(Obj)
			if ref, ok := po.Get("$ref").(string); ok {
				po = params.Get(strings.TrimPrefix(ref, "#/components/parameters/")).(Obj)
			}
			if po.Get("name") == d.Param {
				ps[i] = append(Obj(nil), po...).Set("deprecated", true)
			}
		}
		op = op.Set("parameters", ps)
	}
	return op
}

// markField marks the deprecated field "Schema.property" in schs.
func markField(schs Obj, field string) {
	schema, prop, _ := strings.Cut(field, ".")
	for i, kv := range schs {
		if kv.Key != schema {
			continue
		}
		s := append(Obj(nil), kv.Value.(Obj)...)
		props := append(Obj(nil), s.Get("properties").(Obj)...)
		p := append(Obj(nil), props.Get(prop).(Obj)...)
		schs[i].Value = s.Set("properties", props.Set(prop, p.Set("deprecated", true)))
	}
}
