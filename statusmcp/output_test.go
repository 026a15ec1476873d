package statusmcp

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/envelope"
)

// TestOutputSchema holds outputSchema's rules on a small answer type: the
// body's keys always written required, items' keys typed, a pointer or
// oa's "null" nullable, an object or an array within an item only its
// type, meta.next a string or null.
func TestOutputSchema(t *testing.T) {
	is := is.New(t)
	type item struct {
		ID      string            `json:"id" oa:"minLength=1"`
		Count   int64             `json:"count"`
		Done    bool              `json:"done"`
		DueAt   *string           `json:"dueAt" oa:"time"`
		Nested  *struct{ X int }  `json:"nested"`
		List    []struct{ X int } `json:"list"`
		Project struct{}          `json:"project,omitzero" oa:"null,ref=ExpandedProject"`
		hidden  string
	}
	type body struct {
		Data  []item        `json:"data"`
		Meta  envelope.Meta `json:"meta"`
		Extra string        `json:"extra,omitempty"`
	}
	got, err := json.Marshal(outputSchema(reflect.TypeFor[body]()))
	is.NoErr(err)
	want := `{"properties":{` +
		`"data":{"items":{"properties":{"count":{"type":"integer"},"done":{"type":"boolean"},"dueAt":{"type":["string","null"]},"id":{"type":"string"},` +
		`"list":{"type":"array"},"nested":{"type":["object","null"]},"project":{"type":["object","null"]}},"type":"object"},"type":"array"},` +
		`"extra":{"type":"string"},` +
		`"meta":{"properties":{"next":{"type":["string","null"]},"page":{"type":"integer"},"per_page":{"type":"integer"},"syncedThrough":{"type":"string"},"total":{"type":"integer"}},"type":"object"}},` +
		`"required":["data","meta"],"type":"object"}`
	is.Equal(string(got), want)
	_ = item{}.hidden
}

func TestFirstClause(t *testing.T) {
	is := is.New(t)
	is.Equal(firstClause("Items per page. Over 100 is rejected."), "Items per page.")
	is.Equal(firstClause("The id of the last event: the events after it."), "The id of the last event.")
	is.Equal(firstClause("Ordered by `a; b: c. d`, then `id`; with more."), "Ordered by `a; b: c. d`, then `id`.")
	is.Equal(firstClause("One clause"), "One clause.")
	is.Equal(firstClause(""), "")
}
