package statusmcp

import (
	"encoding/json"
	"testing"

	"github.com/matryer/is"
)

// TestOutputSchema holds outputSchema's rules on a small document: the
// body's required keys, items' keys typed, a nullable type, an object
// within an item only its type, a shape used twice said once in $defs,
// and several shapes as the keys they share.
func TestOutputSchema(t *testing.T) {
	is := is.New(t)
	var root map[string]any
	is.NoErr(json.Unmarshal([]byte(`{"components": {"schemas": {
	  "List": {"type": "object", "additionalProperties": false, "required": ["data", "meta", "other"], "properties": {
	    "data": {"type": "array", "description": "prose", "items": {"$ref": "#/components/schemas/Item"}},
	    "meta": {"$ref": "#/components/schemas/Pair"},
	    "other": {"$ref": "#/components/schemas/Pair"},
	    "events": {"type": "array", "items": {"oneOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}]}}}},
	  "Item": {"type": "object", "required": ["id"], "properties": {
	    "id": {"type": "string", "minLength": 1, "pattern": "^x"},
	    "status": {"$ref": "#/components/schemas/Status"},
	    "dueAt": {"oneOf": [{"type": "string", "format": "date-time"}, {"type": "null"}], "description": "prose"},
	    "nested": {"oneOf": [{"type": "object", "properties": {"deep": {"type": "string"}}}, {"type": "null"}]},
	    "list": {"type": "array", "items": {"type": "object", "properties": {"deep": {"type": "string"}}}}}},
	  "Status": {"type": "string", "enum": ["a", "b"], "description": "prose"},
	  "Pair": {"type": "object", "properties": {"x": {"type": "integer", "minimum": 0}}},
	  "A": {"type": "object", "properties": {"id": {"type": "string"}, "type": {"type": "string", "enum": ["a"]}, "data": {"type": "object", "properties": {"a": {"type": "string"}}}, "onlyA": {"type": "string"}}},
	  "B": {"type": "object", "properties": {"id": {"type": "string"}, "type": {"type": "string", "enum": ["b"]}, "data": {"type": "object", "properties": {"b": {"type": "integer"}}}}}
	}}}`), &root))
	d := document{root: root}
	got, err := json.Marshal(d.outputSchema(map[string]any{"$ref": "#/components/schemas/List"}))
	is.NoErr(err)
	want := `{"$defs":{"Pair":{"properties":{"x":{"type":"integer"}},"type":"object"}},` +
		`"properties":{` +
		`"data":{"items":{"properties":{"dueAt":{"type":["string","null"]},"id":{"type":"string"},"list":{"type":"array"},"nested":{"type":["object","null"]},"status":{"type":"string"}},"type":"object"},"type":"array"},` +
		`"events":{"items":{"properties":{"data":{"type":"object"},"id":{"type":"string"},"type":{"type":"string"}},"type":"object"},"type":"array"},` +
		`"meta":{"$ref":"#/$defs/Pair"},"other":{"$ref":"#/$defs/Pair"}},` +
		`"required":["data","meta","other"],"type":"object"}`
	is.Equal(string(got), want)
}

func TestFirstClause(t *testing.T) {
	is := is.New(t)
	is.Equal(firstClause("Items per page. Over 100 is rejected."), "Items per page.")
	is.Equal(firstClause("The id of the last event: the events after it."), "The id of the last event.")
	is.Equal(firstClause("Ordered by `a; b: c. d`, then `id`; with more."), "Ordered by `a; b: c. d`, then `id`.")
	is.Equal(firstClause("One clause"), "One clause.")
	is.Equal(firstClause(""), "")
}
