package statusapi

import (
	"slices"
	"time"

	"github.com/clientstatus/clientstatus/internal/build/openapigen"

	"github.com/clientstatus/clientstatus/auth"
)

// RouteInfo is what the handler's table declares of one route, for the
// package's tests (see route).
type RouteInfo struct {
	Pattern string
	Keyed   bool       // takes an API key
	Scope   auth.Scope // the scope a restricted key needs; "" for none
	Example string     // a request that succeeds with key "a" on the tests' data
	Exempt  string     // why there is no example, and which test covers the route

	// A resource's list (see listRoute): List, and the parameters it
	// takes beside page and limit.
	List         bool
	Statuses     []string // status's values; none: no status
	ProjectID    bool     // projectId
	DueBefore    bool     // dueBefore
	UpdatedSince bool     // updatedSince
	Expand       bool     // expand=project
}

// RouteTable returns the declarations of the routes of a handler with
// opts, in the order of Routes.
func RouteTable(opts ...Option) []RouteInfo {
	cfg, _ := newConfig(opts) // unvalidated
	var out []RouteInfo
	for _, rt := range operations(cfg) {
		info := RouteInfo{Pattern: rt.path, Keyed: rt.keyed, Scope: rt.scope, Example: rt.example, Exempt: rt.exempt}
		if l := rt.list; l != nil {
			info.List, info.Expand = true, l.expand
			for _, f := range l.filters {
				switch {
				case f.Name == paramStatus:
					info.Statuses = f.values
				case f == params.ProjectID:
					info.ProjectID = true
				case f == params.DueBefore:
					info.DueBefore = true
				case f == params.UpdatedSince:
					info.UpdatedSince = true
				}
			}
		}
		out = append(out, info)
	}
	return out
}

// WithDeprecation declares a deprecation for a test (deprecations.go):
// nothing of v1 is deprecated, so only tests show the headers. The
// handler serves the document generated with it.
func WithDeprecation(path, param, field string, since, sunset time.Time, notice string) Option {
	d := deprecation{path: path, param: param, field: field, since: since, sunset: sunset, notice: notice}
	return func(c *config) {
		c.deprecations = append(c.deprecations, d)
		ds := slices.Clone(c.deprecations)
		c.document = func() []byte {
			cfg := allOptIn()
			cfg.deprecations = ds
			doc, err := openapigen.Generate(describe(cfg))
			if err != nil {
				panic(err)
			}
			return doc
		}
	}
}

// ExpandComponent is the document's name of the expand parameter, under
// components.parameters.
var ExpandComponent = params.Expand.Component

// StreamSafety is how often a handler with open streams reads, unwoken,
// the feed of the organization read longest ago.
const StreamSafety = streamSafety

// StreamQueue is the most events a stream holds for a client that does
// not read.
const StreamQueue = streamQueue

// GeneratedDocument is the document the generator makes of the route
// table, deprecations included.
func GeneratedDocument() []byte {
	doc, err := openapigen.Generate(describeAPI())
	if err != nil {
		panic(err)
	}
	return doc
}
