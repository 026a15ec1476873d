package apidoc

import (
	"reflect"
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

// Route is one path of the API, answering GET and HEAD.
type Route struct {
	Path string
	// ID is the GET operation's id (the HEAD's is ID+"Head"); Tag its
	// one tag; Summary and Description its words.
	ID, Tag, Summary, Description string
	// HeadSummary and HeadDescription are the HEAD twin's words when
	// they are not the derived ones ("(headers only)", "without the
	// body").
	HeadSummary, HeadDescription string
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
	// Responses are responses beside the kind's standard ones, by status;
	// "" takes a standard one away.
	Responses map[int]string
	// Deprecations are what of the route is deprecated.
	Deprecations []Deprecation
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
