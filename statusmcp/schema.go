package statusmcp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clientstatus/clientstatus/openapi"
	"github.com/clientstatus/clientstatus/statusapi"
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

// operation is what a tool takes from its route's GET operation in the
// document: its summary, description and scope, and its 200 answer's
// schema (see outputSchema).
type operation struct {
	summary, description, scope string
	output                      map[string]any
}

// param is a query parameter: the schema of its tool argument (see
// inputSchema) and whether the argument is a JSON number.
type param struct {
	schema  map[string]any
	integer bool
}

func (d document) operation(path string) (operation, error) {
	item, _ := d.at("paths", path).(map[string]any)
	get, _ := item["get"].(map[string]any)
	if get == nil {
		return operation{}, fmt.Errorf("statusmcp: no GET %s in the OpenAPI document", path)
	}
	var op operation
	op.summary, _ = get["summary"].(string)
	op.description, _ = get["description"].(string)
	op.scope, _ = get["x-scope"].(string)
	responses, _ := get["responses"].(map[string]any)
	ok, _ := d.resolve(responses["200"]).(map[string]any)
	schema := d.at2(ok, "content", "application/json", "schema")
	if schema == nil {
		return operation{}, fmt.Errorf("statusmcp: GET %s has no JSON 200 answer in the OpenAPI document", path)
	}
	op.output = d.outputSchema(schema)
	return op, nil
}

// inputSchema is the schema of a tool argument made from its query
// parameter p: the type and the rules a model needs to write a valid
// value (enum, bounds, default, format), and the description's first
// clause. An array parameter (a comma-separated list) is the one string
// the route takes.
func inputSchema(p statusapi.Param) map[string]any {
	out := map[string]any{"type": p.Type}
	if p.Type == "array" {
		out["type"] = "string"
	} else {
		if len(p.Enum) > 0 {
			out["enum"] = p.Enum
		}
		for k, v := range map[string]int{"minimum": p.Minimum, "maximum": p.Maximum, "default": p.Default} {
			if v != 0 {
				out[k] = v
			}
		}
		if p.Format != "" {
			out["format"] = p.Format
		}
	}
	if desc := firstClause(p.Description); desc != "" {
		out["description"] = desc
	}
	return out
}

// firstClause returns s up to its first ". ", "; " or ": " outside
// backquotes, ending with a full stop: what a model needs to choose, the
// rest being the document's detail.
func firstClause(s string) string {
	quoted := false
	for i := 0; i < len(s)-1; i++ {
		switch {
		case s[i] == '`':
			quoted = !quoted
		case !quoted && s[i+1] == ' ' && strings.IndexByte(".;:", s[i]) >= 0:
			s = s[:i]
			i = len(s)
		}
	}
	s = strings.TrimSpace(s)
	if s != "" && !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// resolve returns what v names when it is a local $ref, else v.
func (d document) resolve(v any) any {
	for range 8 {
		m, _ := v.(map[string]any)
		ref, ok := m["$ref"].(string)
		if !ok {
			return v
		}
		v = d.at(strings.Split(strings.TrimPrefix(ref, "#/"), "/")...)
	}
	return v
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
