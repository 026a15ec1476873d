package statusapi

import (
	"bytes"
	"os"
	"testing"

	"github.com/clientstatus/clientstatus/internal/build/openapigen"
)

// TestOpenAPIDocument holds openapi/openapi.json, which package openapi
// embeds, to what the generator makes of the route table (go generate
// writes it).
func TestOpenAPIDocument(t *testing.T) {
	doc, err := openapigen.Generate(describeAPI())
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("../openapi/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, doc) {
		t.Fatal("openapi/openapi.json is not what the route table generates: run go generate ./statusapi")
	}
}
