package statusapi

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/clientstatus/clientstatus/internal/build/openapigen"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
)

var writeOpenAPI = flag.Bool("write-openapi", false, "write openapi/openapi.json from the route table (go generate)")

// documentPath is the committed document, which package openapi embeds.
const documentPath = "../openapi/openapi.json"

// describeAPI is the handler's route table, with every opt-in route, as
// openapigen reads it.
func describeAPI() openapigen.API {
	base := map[string]bool{}
	for _, p := range Routes(memstore.New()) {
		base[p] = true
	}
	var api openapigen.API
	for _, rt := range tableOf(memstore.New(), []Option{WithWebhookEndpoints(memstore.New()), WithRequestLog(new(RequestRecorder))}) {
		r := openapigen.Route{
			Path: rt.path, ID: rt.doc.id, Tag: rt.doc.tag, Summary: rt.doc.summary, Description: rt.doc.description,
			HeadSummary: rt.doc.headSummary, HeadDescription: rt.doc.headDescription,
			Scope: string(rt.scope), Keyed: rt.keyed, Cached: rt.cached, OptIn: !base[rt.path],
			Resource: rt.resource, Expand: rt.expand, Params: rt.doc.params, Responses: rt.doc.responses,
		}
		if l := rt.list; l != nil {
			r.List = &openapigen.List{Status: len(l.statuses) > 0, Project: l.project, DueBefore: l.due, Since: l.since, Expand: l.expand}
		}
		api.Routes = append(api.Routes, r)
	}
	for _, w := range wireSchemas() {
		api.Wires = append(api.Wires, openapigen.Wire{Name: w.doc.name, Description: w.doc.description, Type: w.wire,
			Fields: w.doc.fields, Examples: w.doc.examples, Resource: w.resource, Statuses: w.statuses})
	}
	for _, k := range store.Kinds {
		api.Kinds = append(api.Kinds, openapigen.Kind{Name: string(k), Statuses: kindStatuses[k], Thread: k == store.KindMessage})
	}
	return api
}

// TestOpenAPIDocument holds openapi/openapi.json to what the generator
// makes of the route table; with -write-openapi (go generate) it writes it.
func TestOpenAPIDocument(t *testing.T) {
	doc, err := openapigen.Generate(describeAPI())
	if err != nil {
		t.Fatal(err)
	}
	if *writeOpenAPI {
		if err := os.WriteFile(documentPath, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	committed, err := os.ReadFile(documentPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, doc) {
		t.Fatal("openapi/openapi.json is not what the route table generates: run go generate ./...")
	}
}
