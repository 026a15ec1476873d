package openapigen

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/clientstatus/clientstatus/internal/apidoc"
)

// Schema reflects the struct type t: one property per field with a json
// name, in field order, required unless omitzero or omitempty, described
// by fields (by json name) and shaped by its Go type and its oa tag, a
// comma-separated list of:
//
//	time            a timestamp: date-time of the contract's pattern
//	null            nullable although not a pointer (a pointer always is)
//	ref=Name        the value (or an array's items) is components' Name
//	enum=a|b        the allowed values
//	format=F, pattern=P, minLength=N, minimum=N, maximum=N
//
// which apply to an array's items. A pointer is nullable, written
// {"oneOf": [schema, {"type": "null"}]}.
func Schema(t reflect.Type, description string, fields map[string]string) (Obj, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%s is not a struct", t)
	}
	out := O("type", "object")
	if description != "" {
		out = append(out, KV{"description", description})
	}
	required := A()
	props := Obj{}
	for _, f := range apidoc.Fields(t) {
		p, err := property(f, fields[f.Name])
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t, f.Name, err)
		}
		props = append(props, KV{f.Name, p})
		if f.Required {
			required = append(required, f.Name)
		}
	}
	return append(out, KV{"additionalProperties", false}, KV{"required", required}, KV{"properties", props}), nil
}

// property is the schema of the field f.
func property(f apidoc.Field, description string) (Obj, error) {
	t := f.Type
	array := false
	if t.Kind() == reflect.Slice {
		t, array = t.Elem(), true
	}
	var s Obj
	for _, o := range f.Opts {
		if ref, ok := strings.CutPrefix(o, "ref="); ok {
			s = Ref("schemas", ref)
		}
	}
	if s == nil {
		switch t.Kind() {
		case reflect.String:
			s = O("type", "string")
		case reflect.Int, reflect.Int32, reflect.Int64:
			s = O("type", "integer")
		case reflect.Bool:
			s = O("type", "boolean")
		default:
			return nil, fmt.Errorf("type %s needs oa:\"ref=...\"", t)
		}
		for _, o := range f.Opts {
			k, v, _ := strings.Cut(o, "=")
			switch k {
			case "time":
				s = append(s, KV{"format", "date-time"}, KV{"pattern", apidoc.TimePattern})
			case "format", "pattern":
				s = append(s, KV{k, v})
			case "minLength", "minimum", "maximum":
				n, err := strconv.Atoi(v)
				if err != nil {
					return nil, fmt.Errorf("oa %s: %w", o, err)
				}
				s = append(s, KV{k, n})
			case "enum":
				var e []any
				for _, x := range strings.Split(v, "|") {
					e = append(e, x)
				}
				s = append(s, KV{"enum", e})
			case "null", "ref":
			default:
				return nil, fmt.Errorf("unknown oa option %q", o)
			}
		}
	}
	if array {
		s = O("type", "array", "items", s)
	}
	if f.Nullable {
		s = O("oneOf", A(s, O("type", "null")))
	}
	if description != "" {
		s = append(s, KV{"description", description})
	}
	return s, nil
}

// examples decodes a JSON array of examples.
func examples(name, raw string) ([]any, error) {
	if raw == "" {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal([]byte(raw), &list); err != nil {
		return nil, fmt.Errorf("the examples of %s: %w", name, err)
	}
	out := make([]any, len(list))
	for i, e := range list {
		out[i] = e
	}
	return out, nil
}
