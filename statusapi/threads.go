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

// threadRoutes are the routes of threads, messages and attachments
// (store.Threads).
func threadRoutes(h *handler) []route {
	return []route{
		{"/v1/threads", h.cached(auth.ScopeThreads, h.listThreads)},
		{"/v1/threads/{id}", h.cached(auth.ScopeThreads, h.getThread)},
		{"/v1/threads/{id}/messages", h.cached(auth.ScopeThreads, h.listThreadMessages)},
		{"/v1/messages", h.cached(auth.ScopeThreads, h.listMessages)},
		{"/v1/messages/{id}", h.cached(auth.ScopeThreads, h.getMessage)},
		{"/v1/attachments/{id}/download", h.api(auth.ScopeThreads, h.attachmentLink)},
		// The signed link, as a deliverable's (see download.go).
		{"/v1/attachments/{id}/file", h.serveAttachment},
	}
}

// listThreads serves GET
// /v1/threads?page&limit&status&projectId&updatedSince&expand.
func (h *handler) listThreads(r *http.Request, c caller) (response, error) {
	q, asked, err := expandableList(r, listSpec{statuses: strs(store.ThreadStatuses), project: true, since: true})
	if err != nil {
		return response{}, err
	}
	p, err := h.st.ListThreads(r.Context(), c.Org.ID, store.ThreadQuery{
		PageRequest:  q.PageRequest,
		Status:       store.ThreadStatus(q.Status),
		ProjectID:    q.ProjectID,
		UpdatedSince: q.UpdatedSince,
		OnlyProjects: c.ProjectIDs,
	})
	if err != nil {
		return response{}, err
	}
	return expandedPage(h, r, c, asked, q, p, threadProject, threadExpanded)
}

// getThread serves GET /v1/threads/{id}?expand; an internal thread, or
// one the key may not see, is 404.
func (h *handler) getThread(r *http.Request, c caller) (response, error) {
	asked, err := itemExpand(r)
	if err != nil {
		return response{}, err
	}
	t, err := h.st.GetThread(r.Context(), c.Org.ID, r.PathValue("id"))
	if err == nil {
		err = c.seesOptional(t.ProjectID)
	}
	if err != nil {
		return response{}, err
	}
	return expandedItem(h, r, c, asked, t, threadProject, threadExpanded)
}

// listThreadMessages serves GET
// /v1/threads/{id}/messages?page&limit&updatedSince; a thread the caller
// cannot see is 404.
func (h *handler) listThreadMessages(r *http.Request, c caller) (response, error) {
	q, err := listParamsOf(r, listSpec{since: true})
	if err != nil {
		return response{}, err
	}
	p, err := h.st.ListThreadMessages(r.Context(), c.Org.ID, r.PathValue("id"), store.MessageQuery{
		PageRequest:  q.PageRequest,
		UpdatedSince: q.UpdatedSince,
		OnlyProjects: c.ProjectIDs,
	})
	if err != nil {
		return response{}, err
	}
	return page(q, p, messageOut), nil
}

// listMessages serves GET
// /v1/messages?page&limit&threadId&projectId&updatedSince.
func (h *handler) listMessages(r *http.Request, c caller) (response, error) {
	q, err := listParamsOf(r, listSpec{project: true, since: true, extra: []string{paramThreadID}})
	if err != nil {
		return response{}, err
	}
	p, err := h.st.ListMessages(r.Context(), c.Org.ID, store.MessageQuery{
		PageRequest:  q.PageRequest,
		ThreadID:     q.given[paramThreadID],
		ProjectID:    q.ProjectID,
		UpdatedSince: q.UpdatedSince,
		OnlyProjects: c.ProjectIDs,
	})
	if err != nil {
		return response{}, err
	}
	return page(q, p, messageOut), nil
}

// getMessage serves GET /v1/messages/{id}: an internal message, one of
// an internal thread, or one the key may not see (the store applies its
// projects: a message names none) is 404.
func (h *handler) getMessage(r *http.Request, c caller) (response, error) {
	if err := noParams(r); err != nil {
		return response{}, err
	}
	m, err := h.st.GetMessage(r.Context(), c.Org.ID, r.PathValue("id"), c.ProjectIDs)
	if err != nil {
		return response{}, err
	}
	return item(messageOut(m)), nil
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
