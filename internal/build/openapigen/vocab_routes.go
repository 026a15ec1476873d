package openapigen

// routeResponses are the 200s of the routes that are not a resource's list or item.
var routeResponses = O(
	"OpenAPIDocument", responseOf("This document.",
		hs(plainHeaders, validatorHeaders), O("application/json", O("schema", O("type", "object", "description", "An OpenAPI 3.1 document.")))),
	"DocsPage", responseOf("The reference page: HTML that loads the renderer and this document, both from the handler.",
		hs(plainHeaders, []string{"ETag", "Content-Security-Policy"}), O("text/html", O())),
	"DocsScript", responseOf("The renderer of the reference page: minified JavaScript.",
		hs(plainHeaders, []string{"ETag"}), O("text/javascript", O())),
	"DeletionListResponse", listResponse("One page of deletion records, with paging information.", "DeletionList",
		O("type", "milestone", "id", "ms_acme_4", "deletedAt", "2026-03-01T09:12:44Z"),
		O("type", "project", "id", "prj_acme_2", "deletedAt", "2026-03-01T09:12:44Z"),
	),
	"UsageResponse", bodyResponse("The budget. Reading it spends none of it: the response carries no rate-limit headers.",
		hs(plainHeaders, validatorHeaders), "UsageEnvelope", O("data", O(
			"plan", "starter",
			"limit", 60,
			"remaining", 42,
			"resetAt", "2026-03-01T09:01:00Z",
		))),
	"EventListResponse", eventListResponse,
	"WebhookEndpointListResponse", listResponse("One page of webhook endpoints, with paging information.", "WebhookEndpointList",
		O(
			"id", "we_1",
			"url", "https://hooks.example.com/clientstatus",
			"types", A("invoice.paid", "deliverable.in_review"),
			"status", "enabled",
			"disabledReason", nil,
			"createdAt", "2026-02-01T09:00:00Z",
			"updatedAt", "2026-02-01T09:00:00Z",
		),
	),
	"WebhookDeliveryListResponse", listResponse("One page of delivery attempts, with paging information.", "WebhookDeliveryList",
		O(
			"id", "whd_5f1c",
			"eventId", "evt_0000000000000042",
			"eventType", "invoice.paid",
			"attempt", 1,
			"attemptedAt", "2026-03-01T09:00:01Z",
			"statusCode", 200,
			"error", nil,
			"durationMs", 84,
		),
	),
	"RequestLogListResponse", listResponse("One page of the request log, with paging information.", "RequestLogList",
		O(
			"id", "3f9c2a7e1b5d4c6f8a0e2d4b6c8a0f1e",
			"method", "GET",
			"path", "/v1/invoices",
			"route", "/v1/invoices",
			"query", A("limit", "stauts"),
			"status", 400,
			"errorCode", "INVALID_PARAMETER",
			"keyId", "key_7Hq2",
			"durationMs", 3,
			"createdAt", "2026-03-01T09:00:00Z",
		),
	),
)

// eventListResponse is the events' page, or their live stream.
var eventListResponse = func() Obj {
	r := bodyResponse("A page of events (`application/json`), or the live stream (`text/event-stream`) when the request's `Accept` names it.",
		hs(listHeaders, []string{"X-Accel-Buffering"}), "EventList", listExample(
			O(
				"id", "evt_01J8ZK3M4Q",
				"type", "invoice.paid",
				"createdAt", "2026-03-01T09:00:00Z",
				"data", O(
					"object", "invoice",
					"id", "inv_acme_1",
					"projectId", "prj_acme_1",
					"previousStatus", "open",
				),
			),
			O(
				"id", "evt_01J8ZK3M4R",
				"type", "message.created",
				"createdAt", "2026-03-01T09:00:05Z",
				"data", O(
					"object", "message",
					"id", "msg_acme_1",
					"projectId", "prj_acme_1",
					"threadId", "thr_acme_1",
					"previousStatus", nil,
				),
			),
		))
	return r.Set("content", append(r.Get("content").(Obj), KV{"text/event-stream", O(
		"schema", O(
			"type", "string",
			"description", "Server-Sent Events. First, a frame with no data: `retry: 1000` (reconnect a second after a cut) and, when the stream starts after an event, `id: <that id>` (where a reconnecting client resumes from). Then one frame per event: `id: <event id>`, `event: <event type>`, `data: <the event as JSON, as in the feed>`, and an empty line; a comment line `: ping` at least every 15 seconds.",
		),
		"example", "retry: 1000\nid: evt_01J8ZK3M4P\n\nid: evt_01J8ZK3M4Q\nevent: invoice.paid\ndata: {\"id\":\"evt_01J8ZK3M4Q\",\"type\":\"invoice.paid\",\"createdAt\":\"2026-03-01T09:00:00Z\",\"data\":{\"object\":\"invoice\",\"id\":\"inv_acme_1\",\"projectId\":\"prj_acme_1\",\"previousStatus\":\"open\"}}\n\n: ping\n\n",
	)}))
}()
