package apidoc

import (
	"reflect"
	"slices"
	"strings"
	"time"
)

// API is what the document is generated from.
type API struct {
	Routes []Route
	// Params are the parameters the routes take, in the order of the
	// document's components.
	Params []Param
	// Wires are the wire types, whose schemas are reflected.
	Wires []Wire
	// Kinds are the kinds of item that events are about, in order.
	Kinds []Kind
}

// Route is one path of the API, answering GET and HEAD: its Operation
// as the route declares it, and what its kind implies.
type Route struct {
	Path string
	Operation
	// Scope is the scope a restricted key needs (x-scope), "" for none.
	Scope string
	// Keyed routes take an API key; Cached ones answer 304 to a matching
	// If-None-Match. A route that is neither is public.
	Keyed, Cached bool
	// OptIn routes answer 404 when their option is off.
	OptIn bool
	// Resource is the name of the resource whose items the route serves
	// (List or item), "" for none.
	Resource string
	// List says the route is a list of Resource.
	List bool
	// PathParams are the parameters of the path item, Params those of
	// its operations, in order.
	PathParams, Params []Param
	// Deprecations are what of the route is deprecated.
	Deprecations []Deprecation
}

// Operation is what a route says of its operations beyond what its kind
// implies, in the words of the document.
type Operation struct {
	// ID is the GET operation's id (the HEAD's is ID+"Head"); Tag its
	// one tag; Summary and Description its words.
	ID, Tag, Summary, Description string
	// HeadSummary and HeadDescription are the HEAD twin's words when
	// they are not the derived ones ("(headers only)", "without the
	// body").
	HeadSummary, HeadDescription string
	// Responses are responses beside the kind's standard ones, by status;
	// "" takes a standard one away.
	Responses map[int]string
	// Tool is the name of the MCP tool that answers with the route
	// (package statusmcp), "" for none; the document does not say it.
	Tool string
}

// Deprecation is a deprecated part of a route: the route itself, its
// query parameter Param, or the field Field ("Schema.property") of its
// answers; Sunset is a deprecated route's sunset date. Its operations'
// responses document the deprecation headers.
type Deprecation struct {
	Param, Field string
	Sunset       time.Time
}

// Param is a parameter as the document says it: Component names it
// among the document's parameters; Name and In are its own. Optional
// says "required": false aloud; Form is a comma-separated list (style
// form, explode false).
type Param struct {
	Component, Name, In string
	Required, Optional  bool
	Description         string
	Form                bool
	Schema              Schema
	Examples            []Example
}

// Schema is the schema of a parameter: a zero field is left out; Ref
// names a schema among the document's, and Items the schema of an
// array's items.
type Schema struct {
	Type, Format, Pattern                          string
	MinLength, Minimum, Maximum, Default, MinItems int
	Enum                                           []string
	Ref, Items                                     string
}

// TimePattern is the contract's timestamp: RFC 3339 in UTC, to the
// second.
const TimePattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"

// Example is a named example value of a parameter.
type Example struct{ Name, Value string }

// Kind is a kind of item that events are about, with its statuses
// (none: the kind has none); Thread says its events' data carry
// threadId.
type Kind struct {
	Name     string
	Statuses []string
	Thread   bool
}

// Wire is a wire type of the API as the document names it: its schema is
// reflected from the struct (see Schema).
type Wire struct {
	Name, Description string
	Type              reflect.Type
	// Fields are the descriptions of the fields, by json name.
	Fields map[string]string
	// Examples is a JSON array of examples, each a body of the type.
	Examples string
	// Resource says the type is a resource's item: it also gets a list
	// (Name+"List") and an envelope (Name+"Envelope") schema and their
	// responses, and a status enum and parameter when Statuses are some.
	Resource bool
	Statuses []string
}

// Describe returns the API as package statusapi declares it, with every
// opt-in route; statusapi sets it (its import sets it).
var Describe func() API

// Field is a field of a wire struct as its JSON says it: Name is its json
// name; it is Required unless omitzero or omitempty; Type is its Go type
// without the pointer, which makes it Nullable, as does the oa option
// null; Opts are its oa options (see openapigen.Schema).
type Field struct {
	Name               string
	Required, Nullable bool
	Type               reflect.Type
	Opts               []string
}

// Fields are the fields of the struct type t that have a json name, in
// order: the wire's.
func Fields(t reflect.Type) []Field {
	var out []Field
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || name == "" {
			continue
		}
		opts = "," + opts + ","
		w := Field{Name: name, Type: f.Type, Required: !strings.Contains(opts, ",omitzero,") && !strings.Contains(opts, ",omitempty,")}
		if tag := f.Tag.Get("oa"); tag != "" {
			w.Opts = strings.Split(tag, ",")
		}
		if w.Type.Kind() == reflect.Pointer {
			w.Type, w.Nullable = w.Type.Elem(), true
		}
		w.Nullable = w.Nullable || slices.Contains(w.Opts, "null")
		out = append(out, w)
	}
	return out
}
