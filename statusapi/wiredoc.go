package statusapi

import "reflect"

// wireDoc is what the API's OpenAPI document says of a wire type beyond
// its fields' Go types and oa tags (see internal/build/openapigen's Schema):
// its schema's name (a resource's is its kind's, capitalized), its
// description, its examples (a JSON array of bodies of the type) and
// each field's description, by json name.
type wireDoc struct {
	name, description, examples string
	fields                      map[string]string
}

// wireSchema is a wire type with its words: a resource's item (with its
// statuses) or a type of its own.
type wireSchema struct {
	doc      wireDoc
	wire     reflect.Type
	resource bool
	statuses []string
}

// wireSchemas are the wire types that the document describes, as their
// files declare them (describeWire, declare).
var wireSchemas []wireSchema

// describeWire declares the words of the wire type W, once, in a
// package-level var of the file that defines it.
func describeWire[W any](doc wireDoc) struct{} {
	wireSchemas = append(wireSchemas, wireSchema{doc: doc, wire: reflect.TypeFor[W]()})
	return struct{}{}
}
