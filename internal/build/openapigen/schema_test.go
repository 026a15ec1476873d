package openapigen_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/build/openapigen"
)

type sample struct {
	ID      string   `json:"id" oa:"minLength=1"`
	At      *string  `json:"at" oa:"time"`
	Tags    []string `json:"tags"`
	Count   int64    `json:"count" oa:"format=int64,minimum=0"`
	Project struct{} `json:"project,omitzero" oa:"null,ref=ExpandedProject"`
	hidden  string
}

// TestSchema pins the reflection: json names in field order, required
// unless omitzero, a pointer or "null" nullable as oneOf, oa's options.
func TestSchema(t *testing.T) {
	is := is.New(t)
	s, err := openapigen.Schema(reflect.TypeFor[sample](), "A sample.", map[string]string{"id": "Its id."})
	is.NoErr(err)
	got, err := json.Marshal(s)
	is.NoErr(err)
	is.Equal(string(got), `{"type":"object","description":"A sample.","additionalProperties":false,`+
		`"required":["id","at","tags","count"],"properties":{`+
		`"id":{"type":"string","minLength":1,"description":"Its id."},`+
		`"at":{"oneOf":[{"type":"string","format":"date-time","pattern":"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"},{"type":"null"}]},`+
		`"tags":{"type":"array","items":{"type":"string"}},`+
		`"count":{"type":"integer","format":"int64","minimum":0},`+
		`"project":{"oneOf":[{"$ref":"#/components/schemas/ExpandedProject"},{"type":"null"}]}}}`)
	_ = sample{}.hidden
}

// TestSchemaRefusesUnknown: a typo in an oa tag, or a struct field with no
// ref, is an error, not a silently wrong schema.
func TestSchemaRefusesUnknown(t *testing.T) {
	is := is.New(t)
	_, err := openapigen.Schema(reflect.TypeFor[struct {
		A string `json:"a" oa:"minLenght=1"`
	}](), "", nil)
	is.True(err != nil)
	_, err = openapigen.Schema(reflect.TypeFor[struct {
		B struct{} `json:"b"`
	}](), "", nil)
	is.True(err != nil)
}
