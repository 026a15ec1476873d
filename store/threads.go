package store

import (
	"context"
	"time"
)

// ThreadStatus is the state of a thread.
type ThreadStatus string

// The states of a thread.
const (
	ThreadOpen     ThreadStatus = "open"
	ThreadResolved ThreadStatus = "resolved"
)

// ThreadStatuses lists every thread state.
var ThreadStatuses = []ThreadStatus{ThreadOpen, ThreadResolved}

// Valid reports whether s is one of ThreadStatuses.
func (s ThreadStatus) Valid() bool { return oneOf(s, ThreadStatuses) }

// AuthorSide says which side of the conversation wrote a message.
type AuthorSide string

// The sides of a conversation.
const (
	SideAgency AuthorSide = "agency"
	SideClient AuthorSide = "client"
)

// AuthorSides lists both sides.
var AuthorSides = []AuthorSide{SideAgency, SideClient}

// Valid reports whether s is one of AuthorSides.
func (s AuthorSide) Valid() bool { return oneOf(s, AuthorSides) }

// The kinds of a thread and of a message (a thread is about neither).
const (
	KindThread  Kind = "thread"
	KindMessage Kind = "message"
)

// Ref points at what a thread is about: a milestone, a deliverable or an
// invoice of the same organization.
type Ref struct {
	Kind Kind // KindMilestone, KindDeliverable or KindInvoice
	ID   string
}

// Thread is a conversation between the agency and the client, usually
// about one project.
//
// Internal marks an agency's note to itself: an internal thread, and
// everything in it, is invisible to clients in every way (see Threads).
// MessageCount and LastMessageAt are computed by the store from the
// thread's visible messages; a Put ignores them, as it ignores UpdatedAt.
type Thread struct {
	ID            string
	OrgID         string
	ProjectID     *string // nil for a thread about the whole account
	Subject       string
	Status        ThreadStatus
	About         *Ref // nil when about nothing in particular
	Internal      bool
	CreatedAt     time.Time
	ResolvedAt    *time.Time // nil until resolved
	MessageCount  int        // visible messages; set by the store
	LastMessageAt *time.Time // the newest visible message's CreatedAt; set by the store
	UpdatedAt     time.Time  // set by the store (see Changes)
}

// Author is who wrote a message: a display name and a side, never an
// e-mail address or other contact data.
type Author struct {
	Name string
	Side AuthorSide
}

// Attachment is a file attached to a message, downloaded through a signed
// link like a deliverable's file.
type Attachment struct {
	ID          string
	FileName    string
	ContentType string
	SizeBytes   int64
	// FileKey says where the file lives in the file source. Never sent to
	// clients.
	FileKey string
	// ProjectID is the project of the thread the attachment is in, nil
	// for an organization-wide thread: set by GetAttachment, so that a key
	// restricted to projects is refused another's (see Store);
	// ignored by PutMessage, and never sent to clients. A store that does
	// not set it hides every attachment from such a key.
	ProjectID *string
}

// Message is one message of a thread. Internal marks an agency's note,
// invisible to clients; so is every message of an internal thread.
type Message struct {
	ID          string
	OrgID       string
	ThreadID    string
	Author      Author
	Body        string // plain text
	Attachments []Attachment
	Internal    bool
	CreatedAt   time.Time
	EditedAt    *time.Time // nil until edited
	UpdatedAt   time.Time  // set by the store (see Changes)
}

// ThreadQuery selects threads. They are ordered by LastMessageAt
// descending (threads without a visible message last), then by ID
// ascending; with UpdatedSince, by UpdatedAt ascending, then ID.
type ThreadQuery struct {
	PageRequest
	Status ThreadStatus // "" for any
	ListFilter
}

// MessageQuery selects messages. They are ordered by CreatedAt ascending,
// then by ID, so that new messages land on the last page and earlier
// pages never shift; with UpdatedSince, by UpdatedAt ascending, then ID.
type MessageQuery struct {
	PageRequest
	ThreadID string // "" for any
	ListFilter
}

// Threads is the part of Store that holds communication threads, for the
// routes /v1/threads, /v1/messages and /v1/attachments/{id}/download.
// Internal content is invisible in every way, as if deleted (docs/store.md).
// Implementations are safe for concurrent use and honour ctx.
type Threads interface {
	// ListThreads returns a page of the organization's visible threads.
	// An unknown ProjectID filter gives an empty page.
	ListThreads(ctx context.Context, orgID string, q ThreadQuery) (Page[Thread], error)
	// GetThread returns one visible thread, or ErrNotFound.
	GetThread(ctx context.Context, orgID, id string) (Thread, error)
	// ListThreadMessages returns a page of one visible thread's visible
	// messages, or ErrNotFound when the organization has no such visible
	// thread (or, with q.OnlyProjects, none of those projects').
	// q.ThreadID and q.ProjectID are ignored.
	ListThreadMessages(ctx context.Context, orgID, threadID string, q MessageQuery) (Page[Message], error)
	// ListMessages returns a page of the organization's visible messages
	// across its visible threads; unknown ThreadID or ProjectID filters
	// give an empty page.
	ListMessages(ctx context.Context, orgID string, q MessageQuery) (Page[Message], error)
	// GetMessage returns one visible message of a visible thread, or
	// ErrNotFound. A message does not name its project, so the store
	// applies a restricted key's projects itself: with onlyProjects not
	// nil, a message of a thread outside them, or of an
	// organization-wide thread, is ErrNotFound too (see Store).
	GetMessage(ctx context.Context, orgID, id string, onlyProjects []string) (Message, error)
	// GetAttachment returns a visible message's attachment, with the
	// ProjectID of its thread, or ErrNotFound.
	GetAttachment(ctx context.Context, orgID, id string) (Attachment, error)
}

// ThreadWriter is the portal's side of Threads: put threads and messages
// (insert or replace by id; marking one internal, or visible again, is a
// put), and delete them (a thread takes its messages with it; ErrNotFound
// for a missing one). A thread must be put before its messages, and its
// project and About item must exist. Implementations are safe for
// concurrent use.
type ThreadWriter interface {
	PutThread(ctx context.Context, t Thread) error
	PutMessage(ctx context.Context, m Message) error
	DeleteThread(ctx context.Context, orgID, id string) error
	DeleteMessage(ctx context.Context, orgID, id string) error
}

// Validate reports the first problem that makes t unfit to be stored: an
// empty id or organization id, a ProjectID that points at "", an unknown
// status, an About of another kind than milestone, deliverable or
// invoice, or with an empty id, or an id or an id it refers to that is
// not Storable.
func (t Thread) Validate() error {
	if err := checkOwned("thread", t.ID, t.OrgID); err != nil {
		return err
	}
	if t.ProjectID != nil && *t.ProjectID == "" {
		return Invalid("thread", t.ID, "empty project id (use nil for an organization-wide thread)")
	}
	if t.ProjectID != nil {
		if err := checkStorable("thread", t.ID, "project id", *t.ProjectID); err != nil {
			return err
		}
	}
	if !t.Status.Valid() {
		return Invalid("thread", t.ID, "status %q is not one of %v", t.Status, ThreadStatuses)
	}
	if a := t.About; a != nil {
		if !a.Kind.About() {
			return Invalid("thread", t.ID, "about.type %q is not %s", a.Kind, aboutKinds())
		}
		if a.ID == "" {
			return Invalid("thread", t.ID, "about.id is empty")
		}
		if err := checkStorable("thread", t.ID, "about.id", a.ID); err != nil {
			return err
		}
	}
	return nil
}

// Validate reports the first problem that makes m unfit to be stored: an
// empty id, organization id or thread id, an author without a name or
// with an unknown side, or an attachment without an id or file key, or
// with a negative size, or two attachments with one id, or an id, a
// thread id, an attachment id or a file key that is not Storable.
func (m Message) Validate() error {
	if err := checkOwned("message", m.ID, m.OrgID); err != nil {
		return err
	}
	if m.ThreadID == "" {
		return Invalid("message", m.ID, "empty thread id")
	}
	if err := checkStorable("message", m.ID, "thread id", m.ThreadID); err != nil {
		return err
	}
	if m.Author.Name == "" {
		return Invalid("message", m.ID, "author has no name")
	}
	if !m.Author.Side.Valid() {
		return Invalid("message", m.ID, "author side %q is not agency or client", m.Author.Side)
	}
	seen := make(map[string]bool, len(m.Attachments))
	for _, a := range m.Attachments {
		switch {
		case a.ID == "":
			return Invalid("message", m.ID, "an attachment has no id")
		case seen[a.ID]:
			return Invalid("message", m.ID, "attachment id %q is repeated", a.ID)
		case a.FileKey == "":
			return Invalid("message", m.ID, "attachment %q has no file key", a.ID)
		case a.SizeBytes < 0:
			return Invalid("message", m.ID, "attachment %q has a negative size", a.ID)
		}
		if err := checkStorable("message", m.ID, "attachment id", a.ID); err != nil {
			return err
		}
		if err := checkStorable("message", m.ID, "file key", a.FileKey); err != nil {
			return err
		}
		seen[a.ID] = true
	}
	return nil
}
