package openapigen

// routeResponses are the 200s of the routes that are not a resource's list or item.
var routeResponses = O(
	"OpenAPIDocument", O(
		"description", "This document.",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"ETag", O(
				"$ref", "#/components/headers/ETag",
			),
			"Vary", O(
				"$ref", "#/components/headers/Vary",
			),
		),
		"content", O(
			"application/json", O(
				"schema", O(
					"type", "object",
					"description", "An OpenAPI 3.1 document.",
				),
			),
		),
	),
	"DocsPage", O(
		"description", "The reference page: HTML that loads the renderer and this document, both from the handler.",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"ETag", O(
				"$ref", "#/components/headers/ETag",
			),
			"Content-Security-Policy", O(
				"$ref", "#/components/headers/Content-Security-Policy",
			),
		),
		"content", O(
			"text/html", O(),
		),
	),
	"DocsScript", O(
		"description", "The renderer of the reference page: minified JavaScript.",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"ETag", O(
				"$ref", "#/components/headers/ETag",
			),
		),
		"content", O(
			"text/javascript", O(),
		),
	),
	"DeletionListResponse", O(
		"description", "One page of deletion records, with paging information.",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Sandbox", O(
				"$ref", "#/components/headers/X-Sandbox",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"ETag", O(
				"$ref", "#/components/headers/ETag",
			),
			"Vary", O(
				"$ref", "#/components/headers/Vary",
			),
			"X-RateLimit-Limit", O(
				"$ref", "#/components/headers/X-RateLimit-Limit",
			),
			"X-RateLimit-Remaining", O(
				"$ref", "#/components/headers/X-RateLimit-Remaining",
			),
			"X-RateLimit-Reset", O(
				"$ref", "#/components/headers/X-RateLimit-Reset",
			),
			"RateLimit-Policy", O(
				"$ref", "#/components/headers/RateLimit-Policy",
			),
			"RateLimit", O(
				"$ref", "#/components/headers/RateLimit",
			),
			"Link", O(
				"$ref", "#/components/headers/Link",
			),
		),
		"content", O(
			"application/json", O(
				"schema", O(
					"$ref", "#/components/schemas/DeletionList",
				),
				"example", O(
					"data", A(
						O(
							"type", "milestone",
							"id", "ms_acme_4",
							"deletedAt", "2026-03-01T09:12:44Z",
						),
						O(
							"type", "project",
							"id", "prj_acme_2",
							"deletedAt", "2026-03-01T09:12:44Z",
						),
					),
					"meta", O(
						"page", 1,
						"per_page", 20,
						"total", 2,
					),
				),
			),
		),
	),
	"UsageResponse", O(
		"description", "The budget. Reading it spends none of it: the response carries no rate-limit headers.",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"ETag", O(
				"$ref", "#/components/headers/ETag",
			),
			"Vary", O(
				"$ref", "#/components/headers/Vary",
			),
		),
		"content", O(
			"application/json", O(
				"schema", O(
					"$ref", "#/components/schemas/UsageEnvelope",
				),
				"example", O(
					"data", O(
						"plan", "starter",
						"limit", 60,
						"remaining", 42,
						"resetAt", "2026-03-01T09:01:00Z",
					),
				),
			),
		),
	),
	"EventListResponse", O(
		"description", "A page of events (`application/json`), or the live stream (`text/event-stream`) when the request's `Accept` names it.",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Sandbox", O(
				"$ref", "#/components/headers/X-Sandbox",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"ETag", O(
				"$ref", "#/components/headers/ETag",
			),
			"Vary", O(
				"$ref", "#/components/headers/Vary",
			),
			"X-RateLimit-Limit", O(
				"$ref", "#/components/headers/X-RateLimit-Limit",
			),
			"X-RateLimit-Remaining", O(
				"$ref", "#/components/headers/X-RateLimit-Remaining",
			),
			"X-RateLimit-Reset", O(
				"$ref", "#/components/headers/X-RateLimit-Reset",
			),
			"RateLimit-Policy", O(
				"$ref", "#/components/headers/RateLimit-Policy",
			),
			"RateLimit", O(
				"$ref", "#/components/headers/RateLimit",
			),
			"Link", O(
				"$ref", "#/components/headers/Link",
			),
			"X-Accel-Buffering", O(
				"$ref", "#/components/headers/X-Accel-Buffering",
			),
		),
		"content", O(
			"application/json", O(
				"schema", O(
					"$ref", "#/components/schemas/EventList",
				),
				"example", O(
					"data", A(
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
					),
					"meta", O(
						"page", 1,
						"per_page", 20,
						"total", 2,
					),
				),
			),
			"text/event-stream", O(
				"schema", O(
					"type", "string",
					"description", "Server-Sent Events. First, when the stream starts after an event, a frame `id: <that id>` with no data (where a reconnecting client resumes from). Then one frame per event: `id: <event id>`, `event: <event type>`, `data: <the event as JSON, as in the feed>`, and an empty line; a comment line `: ping` at least every 15 seconds.",
				),
				"example", "id: evt_01J8ZK3M4P\n\nid: evt_01J8ZK3M4Q\nevent: invoice.paid\ndata: {\"id\":\"evt_01J8ZK3M4Q\",\"type\":\"invoice.paid\",\"createdAt\":\"2026-03-01T09:00:00Z\",\"data\":{\"object\":\"invoice\",\"id\":\"inv_acme_1\",\"projectId\":\"prj_acme_1\",\"previousStatus\":\"open\"}}\n\n: ping\n\n",
			),
		),
	),
	"WebhookEndpointListResponse", O(
		"description", "One page of webhook endpoints, with paging information.",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Sandbox", O(
				"$ref", "#/components/headers/X-Sandbox",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"ETag", O(
				"$ref", "#/components/headers/ETag",
			),
			"Vary", O(
				"$ref", "#/components/headers/Vary",
			),
			"X-RateLimit-Limit", O(
				"$ref", "#/components/headers/X-RateLimit-Limit",
			),
			"X-RateLimit-Remaining", O(
				"$ref", "#/components/headers/X-RateLimit-Remaining",
			),
			"X-RateLimit-Reset", O(
				"$ref", "#/components/headers/X-RateLimit-Reset",
			),
			"RateLimit-Policy", O(
				"$ref", "#/components/headers/RateLimit-Policy",
			),
			"RateLimit", O(
				"$ref", "#/components/headers/RateLimit",
			),
			"Link", O(
				"$ref", "#/components/headers/Link",
			),
		),
		"content", O(
			"application/json", O(
				"schema", O(
					"$ref", "#/components/schemas/WebhookEndpointList",
				),
				"example", O(
					"data", A(
						O(
							"id", "we_1",
							"url", "https://hooks.example.com/clientstatus",
							"types", A(
								"invoice.paid",
								"deliverable.in_review",
							),
							"status", "enabled",
							"disabledReason", nil,
							"createdAt", "2026-02-01T09:00:00Z",
							"updatedAt", "2026-02-01T09:00:00Z",
						),
					),
					"meta", O(
						"page", 1,
						"per_page", 20,
						"total", 1,
					),
				),
			),
		),
	),
	"WebhookDeliveryListResponse", O(
		"description", "One page of delivery attempts, with paging information.",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Sandbox", O(
				"$ref", "#/components/headers/X-Sandbox",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"ETag", O(
				"$ref", "#/components/headers/ETag",
			),
			"Vary", O(
				"$ref", "#/components/headers/Vary",
			),
			"X-RateLimit-Limit", O(
				"$ref", "#/components/headers/X-RateLimit-Limit",
			),
			"X-RateLimit-Remaining", O(
				"$ref", "#/components/headers/X-RateLimit-Remaining",
			),
			"X-RateLimit-Reset", O(
				"$ref", "#/components/headers/X-RateLimit-Reset",
			),
			"RateLimit-Policy", O(
				"$ref", "#/components/headers/RateLimit-Policy",
			),
			"RateLimit", O(
				"$ref", "#/components/headers/RateLimit",
			),
			"Link", O(
				"$ref", "#/components/headers/Link",
			),
		),
		"content", O(
			"application/json", O(
				"schema", O(
					"$ref", "#/components/schemas/WebhookDeliveryList",
				),
				"example", O(
					"data", A(
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
					"meta", O(
						"page", 1,
						"per_page", 20,
						"total", 1,
					),
				),
			),
		),
	),
	"RequestLogListResponse", O(
		"description", "One page of the request log, with paging information.",
		"headers", O(
			"X-Request-Id", O(
				"$ref", "#/components/headers/X-Request-Id",
			),
			"X-Sandbox", O(
				"$ref", "#/components/headers/X-Sandbox",
			),
			"X-Content-Type-Options", O(
				"$ref", "#/components/headers/X-Content-Type-Options",
			),
			"Cache-Control", O(
				"$ref", "#/components/headers/Cache-Control",
			),
			"ETag", O(
				"$ref", "#/components/headers/ETag",
			),
			"Vary", O(
				"$ref", "#/components/headers/Vary",
			),
			"X-RateLimit-Limit", O(
				"$ref", "#/components/headers/X-RateLimit-Limit",
			),
			"X-RateLimit-Remaining", O(
				"$ref", "#/components/headers/X-RateLimit-Remaining",
			),
			"X-RateLimit-Reset", O(
				"$ref", "#/components/headers/X-RateLimit-Reset",
			),
			"RateLimit-Policy", O(
				"$ref", "#/components/headers/RateLimit-Policy",
			),
			"RateLimit", O(
				"$ref", "#/components/headers/RateLimit",
			),
			"Link", O(
				"$ref", "#/components/headers/Link",
			),
		),
		"content", O(
			"application/json", O(
				"schema", O(
					"$ref", "#/components/schemas/RequestLogList",
				),
				"example", O(
					"data", A(
						O(
							"id", "3f9c2a7e1b5d4c6f8a0e2d4b6c8a0f1e",
							"method", "GET",
							"path", "/v1/invoices",
							"route", "/v1/invoices",
							"query", A(
								"limit",
								"stauts",
							),
							"status", 400,
							"errorCode", "INVALID_PARAMETER",
							"keyId", "key_7Hq2",
							"durationMs", 3,
							"createdAt", "2026-03-01T09:00:00Z",
						),
					),
					"meta", O(
						"page", 1,
						"per_page", 20,
						"total", 1,
					),
				),
			),
		),
	),
)
