package statusmcp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clientstatus/clientstatus/openapi"
)

// document is the OpenAPI document, decoded once, from which every tool
// takes its parameters, scope and output schema.
type document struct {
	root map[string]any
}

func loadDocument() (document, error) {
	var root map[string]any
	if err := json.Unmarshal(openapi.JSON(), &root); err != nil {
		return document{}, fmt.Errorf("statusmcp: the OpenAPI document: %w", err)
	}
	return document{root: root}, nil
}

// operation is what a tool takes from its route's GET operation: its
// summary, description and scope, its query parameters (name to schema)
// and its 200 answer's schema, with every $ref inlined.
type operation struct {
	summary, description, scope string
	query                       map[string]param
	queryOrder                  []string
	output                      map[string]any
}

type param struct {
	schema      map[string]any
	description string
	integer     bool // a JSON number in a tool's arguments
}

func (d document) operation(path string) (operation, error) {
	item, _ := d.at("paths", path).(map[string]any)
	get, _ := item["get"].(map[string]any)
	if get == nil {
		return operation{}, fmt.Errorf("statusmcp: no GET %s in the OpenAPI document", path)
	}
	op := operation{query: map[string]param{}}
	op.summary, _ = get["summary"].(string)
	op.description, _ = get["description"].(string)
	op.scope, _ = get["x-scope"].(string)
	params, _ := get["parameters"].([]any)
	for _, p := range params {
		pm, _ := d.inline(p, 0).(map[string]any)
		if pm["in"] != "query" {
			continue
		}
		name, _ := pm["name"].(string)
		schema, _ := pm["schema"].(map[string]any)
		desc, _ := pm["description"].(string)
		op.query[name] = param{schema: schema, description: desc, integer: schema["type"] == "integer"}
		op.queryOrder = append(op.queryOrder, name)
	}
	responses, _ := get["responses"].(map[string]any)
	ok, _ := d.inline(responses["200"], 0).(map[string]any)
	schema, _ := d.at2(ok, "content", "application/json", "schema").(map[string]any)
	if schema == nil {
		return operation{}, fmt.Errorf("statusmcp: GET %s has no JSON 200 answer in the OpenAPI document", path)
	}
	op.output = schema
	return op, nil
}

// at returns the value under keys from the document's root.
func (d document) at(keys ...string) any { return d.at2(d.root, keys...) }

func (d document) at2(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// inline returns v with every local $ref replaced by what it names, and
// without examples (they would only lengthen tools/list).
func (d document) inline(v any, depth int) any {
	if depth > 32 {
		panic("statusmcp: the OpenAPI document's $refs nest too deep")
	}
	switch v := v.(type) {
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok {
			target := d.at(strings.Split(strings.TrimPrefix(ref, "#/"), "/")...)
			out := d.inline(target, depth+1)
			if m, ok := out.(map[string]any); ok && len(v) > 1 {
				m = clone(m)
				for k, x := range v { // siblings of $ref (a description) win
					if k != "$ref" {
						m[k] = d.inline(x, depth+1)
					}
				}
				return m
			}
			return out
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			if k == "examples" || k == "example" {
				continue
			}
			out[k] = d.inline(x, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = d.inline(x, depth+1)
		}
		return out
	}
	return v
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
