package statusapi

import (
	"context"
	"net/http"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/apidoc"
	"github.com/clientstatus/clientstatus/store"
)

// thread is a Thread on the wire.
type thread struct {
	ID            string   `json:"id" oa:"minLength=1"`
	ProjectID     *string  `json:"projectId" oa:"minLength=1"`
	Subject       string   `json:"subject"`
	Status        string   `json:"status" oa:"ref=ThreadStatus"`
	About         *about   `json:"about" oa:"ref=About"`
	MessageCount  int      `json:"messageCount" oa:"minimum=0"`
	CreatedAt     string   `json:"createdAt" oa:"time"`
	LastMessageAt *string  `json:"lastMessageAt" oa:"time"`
	ResolvedAt    *string  `json:"resolvedAt" oa:"time"`
	UpdatedAt     string   `json:"updatedAt" oa:"time"`
	Project       expanded `json:"project,omitzero" oa:"null,ref=ExpandedProject"` // expand=project only
}

// about is what a thread is about.
type about struct {
	Type string `json:"type" oa:"enum=milestone|deliverable|invoice"`
	ID   string `json:"id" oa:"minLength=1"`
}

var aboutWire = describeWire[about](apidoc.Wire{
	Name:        "About",
	Description: "What a thread is about: a milestone, a deliverable or an invoice of the same organization.",
	Fields: map[string]string{
		"type": "",
		"id":   "",
	},
})

// threadOut is t on the wire, with the project of expand=project.
func threadOut(t store.Thread, project expanded) thread {
	out := thread{
		ID:            t.ID,
		ProjectID:     t.ProjectID,
		Subject:       t.Subject,
		Status:        string(t.Status),
		MessageCount:  t.MessageCount,
		CreatedAt:     timestamp(t.CreatedAt),
		LastMessageAt: nullTime(t.LastMessageAt),
		ResolvedAt:    nullTime(t.ResolvedAt),
		UpdatedAt:     timestamp(t.UpdatedAt),
		Project:       project,
	}
	if t.About != nil {
		out.About = &about{Type: string(t.About.Kind), ID: t.About.ID}
	}
	return out
}

// message is a Message on the wire: the author's name and side, never
// contact data; attachments always an array.
type message struct {
	ID          string       `json:"id" oa:"minLength=1"`
	ThreadID    string       `json:"threadId" oa:"minLength=1"`
	Author      author       `json:"author" oa:"ref=Author"`
	Body        string       `json:"body"`
	Attachments []attachment `json:"attachments" oa:"ref=Attachment"`
	CreatedAt   string       `json:"createdAt" oa:"time"`
	EditedAt    *string      `json:"editedAt" oa:"time"`
	UpdatedAt   string       `json:"updatedAt" oa:"time"`
}

type author struct {
	Name string `json:"name"`
	Side string `json:"side" oa:"ref=AuthorSide"`
}

var authorWire = describeWire[author](apidoc.Wire{
	Name:        "Author",
	Description: "Who wrote a message: a display name and a side. Never an e-mail address or other contact data.",
	Fields: map[string]string{
		"name": "",
		"side": "",
	},
})

type attachment struct {
	ID          string `json:"id" oa:"minLength=1"`
	FileName    string `json:"fileName"`
	ContentType string `json:"contentType"`
	SizeBytes   int64  `json:"sizeBytes" oa:"format=int64,minimum=0"`
}

var attachmentWire = describeWire[attachment](apidoc.Wire{
	Name:        "Attachment",
	Description: "A file attached to a message; its bytes come through a signed link (`/v1/attachments/{id}/download`).",
	Fields: map[string]string{
		"id":          "Opaque attachment identifier.",
		"fileName":    "",
		"contentType": "",
		"sizeBytes":   "",
	},
})

func messageOut(m store.Message) message {
	atts := make([]attachment, len(m.Attachments))
	for i, a := range m.Attachments {
		atts[i] = attachment{ID: a.ID, FileName: a.FileName, ContentType: a.ContentType, SizeBytes: a.SizeBytes}
	}
	return message{
		ID:          m.ID,
		ThreadID:    m.ThreadID,
		Author:      author{Name: m.Author.Name, Side: string(m.Author.Side)},
		Body:        m.Body,
		Attachments: atts,
		CreatedAt:   timestamp(m.CreatedAt),
		EditedAt:    nullTime(m.EditedAt),
		UpdatedAt:   timestamp(m.UpdatedAt),
	}
}

// threads are an organization's threads: of its projects, or of none,
// which a key restricted to projects never sees. An internal thread is
// none of the API's (the store answers not found).
var threads = declare(resource[store.Thread, thread]{
	schema: apidoc.Wire{
		Description: "A conversation between the agency and the client, usually about one project. Counts and times reflect the messages the client can see only. Every key is always present; absent values are `null`.",
		Examples:    `[{"id": "thr_acme_1", "projectId": "prj_acme_1", "subject": "Launch date", "status": "open", "about": {"type": "milestone", "id": "ms_acme_3"}, "messageCount": 2, "createdAt": "2026-02-02T10:00:00Z", "lastMessageAt": "2026-02-03T16:20:00Z", "resolvedAt": null, "updatedAt": "2026-02-03T16:20:00Z"}]`,
		Fields: map[string]string{
			"id":            "Opaque thread identifier.",
			"projectId":     "The project the thread is about; `null` for a thread about the whole account.",
			"subject":       "The thread's subject.",
			"status":        "",
			"about":         "What the thread is about, when it is about one item; `null` otherwise.",
			"messageCount":  "The number of messages in the thread.",
			"createdAt":     "When the thread was started.",
			"lastMessageAt": "When its newest message was written; `null` while it has none.",
			"resolvedAt":    "When the thread was resolved; `null` until then.",
			"updatedAt":     "When the thread or its messages last changed.",
			"project":       "Only with `expand=project`: the item's project, or `null` for an item of no project or of one the key may not see.",
		},
	},
	kind:      store.KindThread,
	statuses:  strs(store.ThreadStatuses),
	wire:      threadOut,
	projectOf: func(v store.Thread) string { return deref(v.ProjectID) },
})

// messages are the messages of threads; a message names no project, so
// the store applies the caller's projects (through its thread).
var messages = declare(resource[store.Message, message]{
	schema: apidoc.Wire{
		Description: "One message of a thread. Every key is always present; absent values are `null`; `attachments` is always an array.",
		Examples:    `[{"id": "msg_acme_2", "threadId": "thr_acme_1", "author": {"name": "Ana", "side": "agency"}, "body": "Can we move the launch to March?", "attachments": [{"id": "att_acme_1", "fileName": "plan.pdf", "contentType": "application/pdf", "sizeBytes": 48213}], "createdAt": "2026-02-03T16:20:00Z", "editedAt": null, "updatedAt": "2026-02-03T16:20:00Z"}]`,
		Fields: map[string]string{
			"id":          "Opaque message identifier.",
			"threadId":    "",
			"author":      "",
			"body":        "Plain text.",
			"attachments": "",
			"createdAt":   "When the message was written.",
			"editedAt":    "When it was last edited; `null` if never.",
			"updatedAt":   "When the message last changed.",
		},
	},
	kind: store.KindMessage,
	wire: plain(messageOut),
})

// threadRoutes are the routes of threads, messages and attachments
// (store.Threads): GET /v1/threads?page&limit&status&projectId&updatedSince&expand,
// /v1/threads/{id}?expand, /v1/threads/{id}/messages?page&limit&updatedSince
// (a thread the caller cannot see is 404),
// /v1/messages?page&limit&threadId&projectId&updatedSince, and
// /v1/messages/{id}.
func (h *handler) threadRoutes() []route {
	return []route{
		threads.listRoute(h, "/v1/threads", "/v1/threads", listSpec{filters: []*param{params.ProjectID, params.UpdatedSince}},
			orgList(h, store.Store.ListThreads)).describe(operation{
			ID: "listThreads", Tag: "Threads", Tool: "list_threads",
			Summary:     "List threads",
			Description: "The organization's threads, ordered by `lastMessageAt` descending (threads without messages last), then `id`; with `updatedSince`, by `updatedAt` ascending, then `id`. Threads the agency keeps internal are never shown.",
		}),
		threads.itemRoute(h, "/v1/threads/{id}", "/v1/threads/t1", inOrg(h, store.Store.GetThread)).describe(operation{
			ID: "getThread", Tag: "Threads",
			Summary:     "Get a thread",
			Description: "One thread of the organization. An internal thread, or an id of another organization, answers 404 like one that does not exist.",
		}),
		messages.listRoute(h, "/v1/threads/{id}/messages", "/v1/threads/t1/messages", listSpec{filters: []*param{params.UpdatedSince}},
			func(r *http.Request, c caller, q listParams) (store.Page[store.Message], error) {
				return h.st.ListThreadMessages(r.Context(), c.Org.ID, r.PathValue("id"), store.MessageQuery{
					PageRequest: q.PageRequest,
					ListFilter:  q.ListFilter,
				})
			}).describe(operation{
			ID: "listThreadMessages", Tag: "Threads",
			Summary:     "List a thread's messages",
			Description: "The thread's messages, ordered by `createdAt` ascending, then `id`, so that new messages land on the last page and earlier pages never shift; with `updatedSince`, by `updatedAt` ascending, then `id`. A thread the caller cannot see answers 404.",
		}),
		messages.listRoute(h, "/v1/messages", "/v1/messages", listSpec{filters: []*param{params.ProjectID, params.UpdatedSince, params.ThreadID}},
			func(r *http.Request, c caller, q listParams) (store.Page[store.Message], error) {
				return h.st.ListMessages(r.Context(), c.Org.ID, store.MessageQuery{
					PageRequest: q.PageRequest,
					ThreadID:    q.given[params.ThreadID.Name],
					ListFilter:  q.ListFilter,
				})
			}).describe(operation{
			ID: "listMessages", Tag: "Threads", Tool: "list_messages",
			Summary:     "List messages",
			Description: "The organization's messages across its threads, ordered by `createdAt` ascending, then `id`; with `updatedSince`, by `updatedAt` ascending, then `id`.",
		}),
		// An internal message, one of an internal thread, or one the key may
		// not see is 404.
		messages.itemRoute(h, "/v1/messages/{id}", "/v1/messages/msg1", func(ctx context.Context, c caller, id string) (store.Message, error) {
			return h.st.GetMessage(ctx, c.Org.ID, id, c.ProjectIDs)
		}).describe(operation{
			ID: "getMessage", Tag: "Threads",
			Summary:     "Get a message",
			Description: "One message of the organization, exactly as it appears in its list (the same keys). An id of another organization, or outside a restricted key's projects, answers 404 like one that does not exist, and so does a deleted one. An internal message, or one of an internal thread, answers 404 too.",
		}),
		h.keyedRoute("/v1/attachments/{id}/download", auth.ScopeThreads, h.linkTo(attachmentFiles), "/v1/attachments/att1/download").answers(itemAnswer[downloadLink]()).describe(operation{
			ID: "downloadAttachment", Tag: "Threads",
			Summary:     "Get an attachment's download link",
			Description: "A signed URL to the attachment's file, valid for 15 minutes, from any replica, exactly as a deliverable's. The URL needs no `Authorization` header. An attachment of a message the caller cannot see answers 404.",
			Responses:   map[int]string{200: "DownloadLinkResponse"},
		}),
		// The signed link, as a deliverable's (see download.go).
		fileRoute("/v1/attachments/{id}/file", h.serveSigned(attachmentFiles), "the signed link: threads_test.go", operation{
			ID: "getAttachmentFile", Tag: "Threads",
			Summary:     "Fetch an attachment through a signed link",
			Description: "Serves the attachment's file to whoever holds a signed link made by `downloadAttachment`" + signedLinkRules,
		}),
	}
}
