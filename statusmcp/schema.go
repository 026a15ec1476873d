package statusmcp

import (
	"reflect"
	"strings"

	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/internal/apidoc"
	"github.com/clientstatus/clientstatus/statusapi"
)

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

// itemDepth is how deep an item's keys are: the body's keys (data,
// meta) are at depth 1, an item's (or meta's) at 2, where an object or an
// array is only its type.
const itemDepth = 2

// outputSchema is the output schema of a tool whose structuredContent is
// the JSON of a value of the Go type t (a route's statusapi.Operation.Answer):
// as deep as a client needs to read the result. It has the body's keys,
// those always written required, and each item's keys with their JSON
// types, null among them for a nullable field (apidoc.Fields); an object
// or an array within an item is only its type. The prose, enums, patterns,
// bounds and closed objects are the route's schema's in /v1/openapi.json;
// the input schema has the enums to filter by.
func outputSchema(t reflect.Type) map[string]any {
	out := schemaOf(t, false, 0)
	var required []string
	for _, f := range apidoc.Fields(t) {
		if f.Required {
			required = append(required, f.Name)
		}
	}
	out["required"] = required
	return out
}

// schemaOf is outputSchema's schema of a value of type t, or null when
// nullable, depth objects deep (the body: 0; an array's items: as deep
// as the array).
func schemaOf(t reflect.Type, nullable bool, depth int) map[string]any {
	var typ string
	switch t.Kind() {
	case reflect.String:
		typ = "string"
	case reflect.Int, reflect.Int32, reflect.Int64:
		typ = "integer"
	case reflect.Bool:
		typ = "boolean"
	case reflect.Slice:
		typ = "array"
	default:
		typ = "object"
	}
	if t == reflect.TypeFor[envelope.Cursor]() {
		typ = "string" // meta.next: its MarshalJSON writes the after
	}
	out := map[string]any{"type": typ}
	if nullable {
		out["type"] = []string{typ, "null"}
	}
	switch {
	case depth >= itemDepth: // within an item: its type is enough
	case typ == "array":
		out["items"] = schemaOf(t.Elem(), false, depth)
	case typ == "object":
		props := map[string]any{}
		for _, f := range apidoc.Fields(t) {
			props[f.Name] = schemaOf(f.Type, f.Nullable, depth+1)
		}
		out["properties"] = props
	}
	return out
}
