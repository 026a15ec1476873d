package statusclient

import (
	"context"
	"iter"
	"time"
)

// ThreadStatus is the state of a thread.
type ThreadStatus string

// The states of a thread.
const (
	ThreadOpen     ThreadStatus = "open"
	ThreadResolved ThreadStatus = "resolved"
)

// AuthorSide says which side of the conversation wrote a message.
type AuthorSide string

// The sides of a conversation.
const (
	SideAgency AuthorSide = "agency"
	SideClient AuthorSide = "client"
)

// AboutType is the kind of item a thread is about.
type AboutType string

// The kinds of item a thread can be about.
const (
	AboutMilestone   AboutType = "milestone"
	AboutDeliverable AboutType = "deliverable"
	AboutInvoice     AboutType = "invoice"
)

// About points at the item a thread is about, of the same organization.
type About struct {
	Type AboutType `json:"type"`
	ID   string    `json:"id"`
}

// Thread is a conversation between the agency and the organization,
// usually about one project. MessageCount and LastMessageAt count only
// the messages the client can see; UpdatedAt moves when the thread's own
// fields do and when its messages change (new, edited, deleted).
type Thread struct {
	ID            string       `json:"id"`
	ProjectID     *string      `json:"projectId"` // nil for a thread about the whole account
	Subject       string       `json:"subject"`
	Status        ThreadStatus `json:"status"`
	About         *About       `json:"about"` // nil when about nothing in particular
	MessageCount  int          `json:"messageCount"`
	CreatedAt     time.Time    `json:"createdAt"`
	LastMessageAt *time.Time   `json:"lastMessageAt"` // nil until the thread has a message
	ResolvedAt    *time.Time   `json:"resolvedAt"`    // nil until resolved
	UpdatedAt     time.Time    `json:"updatedAt"`
	// Project is the thread's project, asked with ExpandProject; nil
	// otherwise, for a thread about the whole account, or for a project
	// the key may not see.
	Project *ProjectRef `json:"project,omitempty"`
}

// Author is who wrote a message: a display name and a side, never contact
// data.
type Author struct {
	Name string     `json:"name"`
	Side AuthorSide `json:"side"`
}

// Attachment is a file attached to a message, fetched through
// DownloadAttachment.
type Attachment struct {
	ID          string `json:"id"`
	FileName    string `json:"fileName"`
	ContentType string `json:"contentType"`
	SizeBytes   int64  `json:"sizeBytes"`
}

// Message is one message of a thread. Body is plain text.
type Message struct {
	ID          string       `json:"id"`
	ThreadID    string       `json:"threadId"`
	Author      Author       `json:"author"`
	Body        string       `json:"body"`
	Attachments []Attachment `json:"attachments"` // empty, not nil, when the server sent []
	CreatedAt   time.Time    `json:"createdAt"`
	EditedAt    *time.Time   `json:"editedAt"` // nil until edited
	UpdatedAt   time.Time    `json:"updatedAt"`
}

// ThreadListOptions selects threads. Zero values leave the server's
// defaults: page 1, 20 a page, any status, any project. An unknown
// ProjectID gives an empty list, not an error.
type ThreadListOptions struct {
	ListOptions
	Status    ThreadStatus `url:"status"`
	ProjectID string       `url:"projectId"`
	// UpdatedSince keeps those updated at or after it (see ListOptions).
	UpdatedSince time.Time `url:"updatedSince"`
	// IfNoneMatch makes the call conditional (see ListOptions).
	IfNoneMatch string `header:"If-None-Match"`
	// Expand, when ExpandProject, fills each thread's Project.
	Expand Expand `url:"expand"`
}

// ThreadMessageListOptions selects the messages of one thread (see
// ListThreadMessages). Zero values leave the server's defaults: page 1, 20
// a page.
type ThreadMessageListOptions struct {
	ListOptions
	// UpdatedSince keeps those updated at or after it (see ListOptions).
	UpdatedSince time.Time `url:"updatedSince"`
	// IfNoneMatch makes the call conditional (see ListOptions).
	IfNoneMatch string `header:"If-None-Match"`
}

// MessageListOptions selects messages across the organization's threads
// (see ListMessages). Zero values leave the server's defaults: page 1, 20
// a page, any thread, any project. An unknown ThreadID or ProjectID gives
// an empty list, not an error.
type MessageListOptions struct {
	ListOptions
	ThreadID  string `url:"threadId"`
	ProjectID string `url:"projectId"` // the messages of that project's threads
	// UpdatedSince keeps those updated at or after it (see ListOptions).
	UpdatedSince time.Time `url:"updatedSince"`
	// IfNoneMatch makes the call conditional (see ListOptions).
	IfNoneMatch string `header:"If-None-Match"`
}

// The routes of threads and messages: /v1/threads, /v1/messages and
// /v1/threads/{id}/messages.
var (
	threads        = collection[Thread, ThreadListOptions]{path: "/threads"}
	messages       = collection[Message, MessageListOptions]{path: "/messages"}
	threadMessages = nested[Message, ThreadMessageListOptions]{parent: "/threads", leaf: "/messages"}
)

// ListThreads returns one page of the organization's threads, ordered by
// LastMessageAt descending (threads without a message last), then by ID;
// with UpdatedSince, by UpdatedAt ascending, then ID.
func (c *Client) ListThreads(ctx context.Context, opts ThreadListOptions) ([]Thread, *Response, error) {
	return threads.list(ctx, c, opts)
}

// AllThreads walks every page of ListThreads and yields each thread once
// (see ListOptions).
func (c *Client) AllThreads(ctx context.Context, opts ThreadListOptions) iter.Seq2[Thread, error] {
	return threads.all(ctx, c, opts)
}

// GetThread returns one thread. An id of no thread the organization can
// see is an *Error with Code CodeNotFound. opts, when given, may ask for
// its project (ExpandProject).
func (c *Client) GetThread(ctx context.Context, id string, opts ...ItemOptions) (Thread, *Response, error) {
	return threads.get(ctx, c, id, opts)
}

// GetMessage returns one message, exactly as ListMessages has it. An id
// of no message the key can see (an agency's internal note included) is
// an *Error with Code CodeNotFound.
func (c *Client) GetMessage(ctx context.Context, id string) (Message, *Response, error) {
	return messages.get(ctx, c, id, nil)
}

// ListThreadMessages returns one page of a thread's messages, ordered by
// CreatedAt ascending, then by ID, so that new messages land on the last
// page and earlier pages never shift (with UpdatedSince, by UpdatedAt
// ascending, then ID). An unknown thread is an *Error with Code
// CodeNotFound.
func (c *Client) ListThreadMessages(ctx context.Context, threadID string, opts ThreadMessageListOptions) ([]Message, *Response, error) {
	return threadMessages.in(threadID).list(ctx, c, opts)
}

// AllThreadMessages walks every page of ListThreadMessages and yields each
// message once (see ListOptions).
func (c *Client) AllThreadMessages(ctx context.Context, threadID string, opts ThreadMessageListOptions) iter.Seq2[Message, error] {
	return threadMessages.in(threadID).all(ctx, c, opts)
}

// ListMessages returns one page of the organization's messages across its
// threads, in the order of ListThreadMessages.
func (c *Client) ListMessages(ctx context.Context, opts MessageListOptions) ([]Message, *Response, error) {
	return messages.list(ctx, c, opts)
}

// AllMessages walks every page of ListMessages and yields each message once
// (see ListOptions).
func (c *Client) AllMessages(ctx context.Context, opts MessageListOptions) iter.Seq2[Message, error] {
	return messages.all(ctx, c, opts)
}

// DownloadAttachment returns a fresh signed link to a message attachment's
// file, exactly as DownloadDeliverable does for a deliverable's. An
// attachment the organization cannot see is an *Error with Code
// CodeNotFound.
func (c *Client) DownloadAttachment(ctx context.Context, id string) (DownloadLink, *Response, error) {
	return c.downloadLink(ctx, "/attachments", id, "/download")
}
