package statusapi

import (
	"context"
	"net/http"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// thread is a Thread on the wire.
type thread struct {
	ID            string   `json:"id"`
	ProjectID     *string  `json:"projectId"`
	Subject       string   `json:"subject"`
	Status        string   `json:"status"`
	About         *about   `json:"about"`
	MessageCount  int      `json:"messageCount"`
	CreatedAt     string   `json:"createdAt"`
	LastMessageAt *string  `json:"lastMessageAt"`
	ResolvedAt    *string  `json:"resolvedAt"`
	UpdatedAt     string   `json:"updatedAt"`
	Project       expanded `json:"project,omitzero"` // expand=project only
}

// about is what a thread is about.
type about struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

func threadOut(t store.Thread) thread {
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
	}
	if t.About != nil {
		out.About = &about{Type: string(t.About.Kind), ID: t.About.ID}
	}
	return out
}

// threadExpanded is threadOut with the project of expand=project.
func threadExpanded(t store.Thread, project expanded) thread {
	out := threadOut(t)
	out.Project = project
	return out
}

// message is a Message on the wire: the author's name and side, never
// contact data; attachments always an array.
type message struct {
	ID          string       `json:"id"`
	ThreadID    string       `json:"threadId"`
	Author      author       `json:"author"`
	Body        string       `json:"body"`
	Attachments []attachment `json:"attachments"`
	CreatedAt   string       `json:"createdAt"`
	EditedAt    *string      `json:"editedAt"`
	UpdatedAt   string       `json:"updatedAt"`
}

type author struct {
	Name string `json:"name"`
	Side string `json:"side"`
}

type attachment struct {
	ID          string `json:"id"`
	FileName    string `json:"fileName"`
	ContentType string `json:"contentType"`
	SizeBytes   int64  `json:"sizeBytes"`
}

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
	kind:      store.KindThread,
	statuses:  strs(store.ThreadStatuses),
	wire:      threadExpanded,
	projectOf: func(v store.Thread) string { return deref(v.ProjectID) },
})

// messages are the messages of threads; a message names no project, so
// the store applies the caller's projects (through its thread).
var messages = declare(resource[store.Message, message]{
	kind: store.KindMessage,
	wire: plain(messageOut),
})

var _ = registerRoutes(threadRoutes)

// threadRoutes are the routes of threads, messages and attachments
// (store.Threads): GET /v1/threads?page&limit&status&projectId&updatedSince&expand,
// /v1/threads/{id}?expand, /v1/threads/{id}/messages?page&limit&updatedSince
// (a thread the caller cannot see is 404),
// /v1/messages?page&limit&threadId&projectId&updatedSince, and
// /v1/messages/{id}.
func threadRoutes(h *handler) []route {
	return []route{
		threads.listRoute(h, "/v1/threads", "/v1/threads", listSpec{project: true, since: true},
			func(r *http.Request, c caller, q listParams) (store.Page[store.Thread], error) {
				return h.st.ListThreads(r.Context(), c.Org.ID, store.ThreadQuery{
					PageRequest:  q.PageRequest,
					Status:       store.ThreadStatus(q.Status),
					ProjectID:    q.ProjectID,
					UpdatedSince: q.UpdatedSince,
					After:        q.After,
					OnlyProjects: c.ProjectIDs,
				})
			}),
		threads.itemRoute(h, "/v1/threads/{id}", "/v1/threads/t1", inOrg(h.st.GetThread)),
		messages.listRoute(h, "/v1/threads/{id}/messages", "/v1/threads/t1/messages", listSpec{since: true},
			func(r *http.Request, c caller, q listParams) (store.Page[store.Message], error) {
				return h.st.ListThreadMessages(r.Context(), c.Org.ID, r.PathValue("id"), store.MessageQuery{
					PageRequest:  q.PageRequest,
					UpdatedSince: q.UpdatedSince,
					After:        q.After,
					OnlyProjects: c.ProjectIDs,
				})
			}),
		messages.listRoute(h, "/v1/messages", "/v1/messages", listSpec{project: true, since: true, extra: []string{paramThreadID}},
			func(r *http.Request, c caller, q listParams) (store.Page[store.Message], error) {
				return h.st.ListMessages(r.Context(), c.Org.ID, store.MessageQuery{
					PageRequest:  q.PageRequest,
					ThreadID:     q.given[paramThreadID],
					ProjectID:    q.ProjectID,
					UpdatedSince: q.UpdatedSince,
					After:        q.After,
					OnlyProjects: c.ProjectIDs,
				})
			}),
		// An internal message, one of an internal thread, or one the key may
		// not see is 404.
		messages.itemRoute(h, "/v1/messages/{id}", "/v1/messages/msg1", func(ctx context.Context, c caller, id string) (store.Message, error) {
			return h.st.GetMessage(ctx, c.Org.ID, id, c.ProjectIDs)
		}),
		h.keyedRoute("/v1/attachments/{id}/download", auth.ScopeThreads, h.attachmentLink, "/v1/attachments/att1/download"),
		// The signed link, as a deliverable's (see download.go).
		publicRoute("/v1/attachments/{id}/file", h.serveAttachment, "the signed link: threads_test.go"),
	}
}

// attachmentLink serves GET /v1/attachments/{id}/download: a signed link,
// exactly as a deliverable's.
func (h *handler) attachmentLink(r *http.Request, c caller) (response, error) {
	if err := noParams(r); err != nil {
		return response{}, err
	}
	id := r.PathValue("id")
	a, err := h.st.GetAttachment(r.Context(), c.Org.ID, id)
	if err == nil {
		err = c.seesOptional(a.ProjectID)
	}
	if err != nil {
		return response{}, err
	}
	return h.link(r, attachmentFiles, c.Org.ID, id), nil
}

// serveAttachment serves GET /v1/attachments/{id}/file, the signed link.
// An attachment whose message became internal or was deleted since the
// link was made is 404.
func (h *handler) serveAttachment(w http.ResponseWriter, r *http.Request) {
	h.serveSigned(w, r, attachmentFiles, func(ctx context.Context, org, id string) (servedFile, error) {
		a, err := h.st.GetAttachment(ctx, org, id)
		if err != nil {
			return servedFile{}, err
		}
		return servedFile{key: a.FileKey, name: a.FileName, contentType: a.ContentType, size: &a.SizeBytes}, nil
	})
}
