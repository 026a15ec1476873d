package statusmcp

import (
	"encoding/json"
	"maps"
	"strings"
)

// schemaRef is the prefix of a $ref to one of the document's schemas.
const schemaRef = "#/components/schemas/"

// outputSchema is the output schema of a tool whose structuredContent is
// a route's body of schema s (the OpenAPI document's, with its $refs):
// as deep as a client needs to read the result. It keeps the body's keys
// (required), and each item's keys with their JSON types; an object or
// an array within an item is only its type. It drops the prose, enums,
// patterns, bounds, closed objects (additionalProperties) and nested
// required keys that a client reading the answer does not need (the
// input schema has the enums to filter by, and the route's schema in
// /v1/openapi.json has the rest). A shape used twice is
// said once, in $defs. Items of several shapes (oneOf, such as an
// event's) are one object of the keys every shape has, typed only as far
// as the shapes agree.
func (d document) outputSchema(s any) map[string]any {
	c := &compactor{d: d, uses: map[string]int{}, defs: map[string]any{}}
	c.count(s, 0)
	out, _ := c.compact(s, 0).(map[string]any)
	if req, ok := c.d.resolve(s).(map[string]any)["required"]; ok {
		out["required"] = req
	}
	if len(c.defs) > 0 {
		out["$defs"] = c.defs
	}
	return out
}

type compactor struct {
	d    document
	uses map[string]int // a schema's name: how often the tree names it
	defs map[string]any
}

// count counts the $refs to objects under v, following them.
func (c *compactor) count(v any, depth int) {
	if depth > 32 {
		panic("statusmcp: the OpenAPI document's $refs nest too deep")
	}
	switch v := v.(type) {
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok {
			target := c.d.resolve(v)
			if name, ok := strings.CutPrefix(ref, schemaRef); ok && isObject(target) {
				c.uses[name]++
			}
			c.count(target, depth+1)
			return
		}
		for k, x := range v {
			if k != "examples" && k != "example" && k != "description" {
				c.count(x, depth+1)
			}
		}
	case []any:
		for _, x := range v {
			c.count(x, depth+1)
		}
	}
}

func isObject(v any) bool {
	m, _ := v.(map[string]any)
	return m["type"] == "object"
}

// itemDepth is how deep an item's keys are: the body's keys (data,
// meta) are at depth 1, an item's (or meta's) at 2, where an object or an
// array is only its type.
const itemDepth = 2

// compact is v as outputSchema keeps it, v being the value of a key
// depth objects deep (the body: 0; an array's items: as deep as it).
func (c *compactor) compact(v any, depth int) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	if ref, ok := m["$ref"].(string); ok {
		target := c.d.resolve(m)
		name, named := strings.CutPrefix(ref, schemaRef)
		if !named || c.uses[name] < 2 {
			return c.compact(target, depth)
		}
		if _, done := c.defs[name]; !done {
			c.defs[name] = nil // the name is taken before its shape is made
			c.defs[name] = c.compact(target, depth)
		}
		return map[string]any{"$ref": "#/$defs/" + name}
	}
	out := map[string]any{}
	if x, ok := m["type"]; ok {
		out["type"] = x
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if branches, ok := m[k].([]any); ok {
			maps.Copy(out, c.union(branches, depth))
		}
	}
	if depth >= itemDepth {
		return out // within an item: its type is enough
	}
	if props, ok := m["properties"].(map[string]any); ok {
		ps := make(map[string]any, len(props))
		for k, x := range props {
			ps[k] = c.compact(x, depth+1)
		}
		out["properties"] = ps
	}
	if items, ok := m["items"]; ok {
		out["items"] = c.compact(items, depth)
	}
	return out
}

// union is the compact schema of a oneOf or anyOf: a type and null is
// that type, nullable; several object shapes are one object of the keys
// they share.
func (c *compactor) union(branches []any, depth int) map[string]any {
	var shapes []map[string]any
	null := false
	for _, b := range branches {
		s, _ := c.compact(b, depth).(map[string]any)
		if s["type"] == "null" && len(s) == 1 {
			null = true
			continue
		}
		shapes = append(shapes, s)
	}
	var out map[string]any
	switch {
	case len(shapes) == 0:
		return map[string]any{"type": "null"}
	case len(shapes) == 1:
		out = shapes[0]
	default:
		out = c.common(shapes)
	}
	if !null {
		return out
	}
	t, ok := out["type"].(string)
	if !ok { // a $ref
		return map[string]any{"anyOf": []any{out, map[string]any{"type": "null"}}}
	}
	out = maps.Clone(out)
	out["type"] = []any{t, "null"}
	return out
}

// common is the object of the keys every shape has: a key's schema where
// the shapes agree on it, else only its type where they agree on that.
func (c *compactor) common(shapes []map[string]any) map[string]any {
	props := make([]map[string]any, len(shapes))
	for i, s := range shapes {
		if ref, ok := s["$ref"].(string); ok {
			s, _ = c.defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
		props[i], _ = s["properties"].(map[string]any)
	}
	out := map[string]any{}
	for name, first := range props[0] {
		same, sameType := true, true
		for _, p := range props[1:] {
			x, ok := p[name]
			if !ok {
				same, sameType = false, false
				break
			}
			same = same && jsonEqual(x, first)
			sameType = sameType && jsonEqual(typeOf(x), typeOf(first))
		}
		switch {
		case same:
			out[name] = first
		case sameType && typeOf(first) != nil:
			out[name] = map[string]any{"type": typeOf(first)}
		}
	}
	return map[string]any{"type": "object", "properties": out}
}

func typeOf(s any) any {
	m, _ := s.(map[string]any)
	return m["type"]
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
