package statusapi

import (
	"reflect"

	"github.com/clientstatus/clientstatus/internal/apidoc"
)

// describeWire is doc, what the API's OpenAPI document says of the wire
// type W beyond its fields' Go types and oa tags (its name, description,
// examples and fields' words), with W as its Type: a package-level var of
// the file that defines W, which wireSchemas lists.
func describeWire[W any](doc apidoc.Wire) apidoc.Wire {
	doc.Type = reflect.TypeFor[W]()
	return doc
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
