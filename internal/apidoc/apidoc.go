package apidoc

import (
	"reflect"
	"time"
)

// API is what the document is generated from.
type API struct {
	Routes []Route
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
	// List is the parameters of a resource's list; nil for an item.
	List *List
	// Expand says an item route takes expand=project.
	Expand bool
	// Params are further parameters, by component name, in order. The
	// path's id is a parameter of the path unless Params names it ("Id").
	Params []string
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

// List is which parameters a list takes beside page and limit.
type List struct {
	Status, Project, DueBefore, Since, Expand bool
}

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
