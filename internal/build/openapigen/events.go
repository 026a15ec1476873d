package openapigen

import (
	"encoding/json"
	"strings"

	"github.com/clientstatus/clientstatus/internal/apidoc"
)

// eventTypes are the types of the events about kind k: created, updated,
// deleted, then one per status.
func eventTypes(k apidoc.Kind) []any {
	out := A(k.Name+".created", k.Name+".updated", k.Name+".deleted")
	for _, s := range k.Statuses {
		out = append(out, k.Name+"."+s)
	}
	return out
}

// schemaName is the name of kind's schemas: "milestone" is "Milestone".
func schemaName(kind string) string { return strings.ToUpper(kind[:1]) + kind[1:] }

// eventComponents adds the event schemas: one per kind (its types, its
// thin data), Event (one of them, by type) and EventTypeName (every
// type); and returns the webhooks, one per kind, whose payload is the
// kind's event.
func eventComponents(kinds []apidoc.Kind, wires []apidoc.Wire, schs *Obj) Obj {
	var branches []any
	mapping := Obj{}
	all := A()
	webhooks := Obj{}
	for _, k := range kinds {
		name := schemaName(k.Name) + "Event"
		types := eventTypes(k)
		all = append(all, types...)
		branches = append(branches, Ref("schemas", name))
		for _, t := range types {
			mapping = append(mapping, KV{t.(string), "#/components/schemas/" + name})
		}
		*schs = append(*schs, KV{name, eventSchema(k, types, wires)})
		webhooks = append(webhooks, KV{k.Name, O("post", O(
			"operationId", k.Name+"Webhook",
			"tags", A("Webhooks"),
			"summary", "An event about "+article(k.Name)+" "+k.Name,
			"description", "What each webhook endpoint whose `types` take it receives: the event JSON, exactly as `GET /v1/events` serves it, POSTed to the endpoint's URL and signed as Standard Webhooks specifies (`webhook-id`, `webhook-timestamp`, `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` with the endpoint's secret). A 2xx answer within 15 seconds is success; anything else is retried, and `410 Gone` disables the endpoint.",
			"security", A(),
			"parameters", A(
				webhookHeader("webhook-id", "The event's id, the same on every attempt: deduplicate on it."),
				webhookHeader("webhook-timestamp", "Unix seconds of this attempt, signed with the body."),
				webhookHeader("webhook-signature", "`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` with the endpoint's secret."),
			),
			"requestBody", O("required", true, "content", O("application/json", O("schema", Ref("schemas", name)))),
			"responses", O(
				"2XX", O("description", "Received: the delivery succeeded."),
				"4XX", O("description", "Refused: retried later, except `410 Gone`, which disables the endpoint."),
			),
		))})
	}
	*schs = append(*schs,
		KV{"Event", O(
			"description", "One client-visible change: one schema per kind of item, told apart by `type` (`{kind}.{created|updated|deleted}`, or `{kind}.{new status}`).",
			"oneOf", branches,
			"discriminator", O("propertyName", "type", "mapping", mapping),
		)},
		KV{"EventTypeName", O("type", "string", "enum", all,
			"description", "An event type: `{kind}.created`, `.updated`, `.deleted`, or `{kind}.{status}` for a kind that has statuses.")},
	)
	return webhooks
}

func webhookHeader(name, description string) Obj {
	return O("name", name, "in", "header", "required", true, "description", description, "schema", O("type", "string", "minLength", 1))
}

// eventSchema is the schema of the events about k.
func eventSchema(k apidoc.Kind, types []any, wires []apidoc.Wire) Obj {
	data := O(
		"object", O("type", "string", "const", k.Name, "description", "The kind of item."),
		"id", O("type", "string", "minLength", 1, "description", "The item's id: read it at its single-item route, or its list."),
		"projectId", O("oneOf", A(O("type", "string"), O("type", "null")),
			"description", "The project the item belongs to (for a deleted item, the one it was in); null for what belongs to no project."),
	)
	required := A("object", "id", "projectId")
	if k.Thread {
		data = append(data, KV{"threadId", O("type", "string", "minLength", 1, "description", "The "+k.Name+"'s thread.")})
		required = append(required, "threadId")
	}
	description := "An event about " + article(k.Name) + " " + k.Name + ": `" + k.Name + ".created`, `.updated` or `.deleted`"
	last := types[len(types)-1]
	example := O("object", k.Name, "id", exampleID(k.Name, wires), "projectId", "prj_acme_1")
	if k.Thread {
		example = append(example, KV{"threadId", "thr_acme_1"})
	}
	if n := len(k.Statuses); n > 0 {
		description += ", or `" + k.Name + ".{new status}` when its status changes (beside `.updated`), with `data.previousStatus`"
		data = append(data, KV{"previousStatus", O("oneOf", A(Ref("schemas", schemaName(k.Name)+"Status"), O("type", "null")),
			"description", "On an event typed by a new status (`"+last.(string)+"`), the status before; null on every other event.")})
		prev := k.Statuses[0]
		if n > 1 {
			prev = k.Statuses[n-2]
		}
		example = append(example, KV{"previousStatus", prev})
	} else {
		data = append(data, KV{"previousStatus", O("oneOf", A(O("type", "string"), O("type", "null")),
			"description", "Always null: "+article(k.Name)+" "+k.Name+" has no status.")})
		example = append(example, KV{"previousStatus", nil})
		last = k.Name + ".created"
	}
	required = append(required, "previousStatus")
	description += ". Every " + k.Name + " event's `data` has the same keys."
	return O(
		"type", "object",
		"description", description,
		"examples", A(O("id", "evt_01J8ZK3M4Q", "type", last, "createdAt", "2026-03-01T09:00:00Z", "data", example)),
		"additionalProperties", false,
		"required", A("id", "type", "createdAt", "data"),
		"properties", O(
			"id", O("type", "string", "minLength", 1, "description", "The event's id: opaque; pass it as `after` (or `Last-Event-ID`) to resume after it. Compare ids for equality only."),
			"type", O("type", "string", "enum", types, "description", "What happened."),
			"createdAt", O("type", "string", "format", "date-time", "pattern", apidoc.TimePattern,
				"description", "When the change was written (the item's new `updatedAt`, or its deletion's `deletedAt`)."),
			"data", O("type", "object", "additionalProperties", false, "required", required, "properties", data,
				"description", "What the event is about: thin, read the item itself."),
		),
	)
}

// exampleID is the id of the first example of kind's wire type, or a
// made-up one.
func exampleID(kind string, wires []apidoc.Wire) string {
	for _, w := range wires {
		if w.Name != schemaName(kind) {
			continue
		}
		var ex []struct {
			ID string `json:"id"`
		}
		if json.Unmarshal([]byte(w.Examples), &ex) == nil && len(ex) > 0 && ex[0].ID != "" {
			return ex[0].ID
		}
	}
	return kind + "_1"
}
