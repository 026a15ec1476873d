package statusapi

import (
	"reflect"

	"github.com/clientstatus/clientstatus/internal/apidoc"
)

// wireDoc is what the API's OpenAPI document says of a wire type beyond
// its fields' Go types and oa tags (see internal/build/openapigen's Schema):
// its schema's name (a resource's is its kind's, capitalized), its
// description, its examples (a JSON array of bodies of the type) and
// each field's description, by json name.
type wireDoc struct {
	name, description, examples string
	fields                      map[string]string
}

// describeWire gives the wire type W its words, in a package-level var of
// the file that defines it, which wireSchemas lists.
func describeWire[W any](doc wireDoc) apidoc.Wire {
	return doc.of(reflect.TypeFor[W]())
}

// of is the wire type t with the words of doc.
func (doc wireDoc) of(t reflect.Type) apidoc.Wire {
	return apidoc.Wire{Name: doc.name, Description: doc.description, Type: t, Fields: doc.fields, Examples: doc.examples}
}

// wireSchemas lists the wire types that the OpenAPI document describes:
// each resource's item and the types of their routes' bodies.
func wireSchemas() []apidoc.Wire {
	return []apidoc.Wire{
		deletionWire, deliverables.schema, downloadLinkWire, projectRefWire,
		invoices.schema, milestones.schema, projects.schema, requestLogItemWire,
		aboutWire, authorWire, attachmentWire, threads.schema, messages.schema,
		usageWire, webhookEndpointWire, webhookDeliveryWire,
	}
}
