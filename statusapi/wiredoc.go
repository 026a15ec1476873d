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

// describeWire gives the wire type W its words, in a package-level var of
// the file that defines it, which wireSchemas lists.
func describeWire[W any](doc wireDoc) wireSchema {
	return wireSchema{doc: doc, wire: reflect.TypeFor[W]()}
}

// wireSchemas lists the wire types that the OpenAPI document describes:
// each resource's item and the types of their routes' bodies.
func wireSchemas() []wireSchema {
	return []wireSchema{
		deletionWire, deliverables.schema, downloadLinkWire, projectRefWire,
		invoices.schema, milestones.schema, projects.schema, requestLogItemWire,
		aboutWire, authorWire, attachmentWire, threads.schema, messages.schema,
		usageWire, webhookEndpointWire, webhookDeliveryWire,
	}
}
