package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/clientstatus/clientstatus/store"
)

// Communication threads (store.Threads, store.ThreadWriter).
//
// The tables threads, messages and attachments hold everything the portal
// puts, internal content included (migration 20260701000001_threads).
// Invisibility is the queries': every read names the visibility columns
// (visibleThread, visibleMessage), and every list reads an index restricted
// to them, so an internal row is never read, let alone filtered out after
// the fact. What a client sees of a thread (MessageCount, LastMessageAt,
// UpdatedAt) is kept in its row by triggers, from its messages that are
// not internal; the deletion records of content hidden or shown again too.

var (
	_ store.Threads      = (*Store)(nil)
	_ store.ThreadWriter = (*Store)(nil)
)

// The conditions of what clients may see, on the aliases t (threads) and
// m (messages); the list indexes are restricted to the same.
const (
	visibleThread  = "NOT t.internal"
	visibleMessage = "NOT m.internal AND NOT m.thread_internal"
)

type threadRow struct {
	bun.BaseModel `bun:"table:threads,alias:t"`
	total

	OrgID              string     `bun:"org_id,pk"`
	ID                 string     `bun:"id,pk"`
	ProjectID          *string    `bun:"project_id"`
	Subject            string     `bun:"subject,notnull"`
	Status             string     `bun:"status,notnull"`
	AboutMilestoneID   *string    `bun:"about_milestone_id"`
	AboutDeliverableID *string    `bun:"about_deliverable_id"`
	AboutInvoiceID     *string    `bun:"about_invoice_id"`
	Internal           bool       `bun:"internal,notnull"`
	CreatedAt          time.Time  `bun:"created_at,notnull"`
	ResolvedAt         *time.Time `bun:"resolved_at"`
	UpdatedAt          time.Time  `bun:"updated_at,notnull"` // the database's: never written

	// The triggers', from the messages that are not internal: never written.
	MessageCount      int        `bun:"message_count,scanonly"`
	LastMessageAt     *time.Time `bun:"last_message_at,scanonly"`
	MessagesChangedAt *time.Time `bun:"messages_changed_at,scanonly"`
}

// threadTable is the table of threads, for the generic list and get
// (resource): clients see the threads that are not internal, and a list's
// total is counted (item_counts holds no threads). An organization-wide
// thread (project NULL) matches no restriction to projects.
var threadTable = resource[threadRow, store.Thread]{
	kind: "thread", plural: "threads", alias: "t",
	order:   "t.last_message_at DESC NULLS LAST, t.id",
	project: "t.project_id", status: "t.status",
	visible: visibleThread,
	item:    threadRow.thread,
}

func (row threadRow) thread() store.Thread {
	th := store.Thread{
		ID:            row.ID,
		OrgID:         row.OrgID,
		ProjectID:     row.ProjectID,
		Subject:       row.Subject,
		Status:        store.ThreadStatus(row.Status),
		Internal:      row.Internal,
		CreatedAt:     row.CreatedAt.UTC(),
		ResolvedAt:    utc(row.ResolvedAt),
		MessageCount:  row.MessageCount,
		LastMessageAt: utc(row.LastMessageAt),
		UpdatedAt:     row.UpdatedAt.UTC(),
	}
	switch { // at most one is set (the check threads_about_one)
	case row.AboutMilestoneID != nil:
		th.About = &store.Ref{Kind: store.KindMilestone, ID: *row.AboutMilestoneID}
	case row.AboutDeliverableID != nil:
		th.About = &store.Ref{Kind: store.KindDeliverable, ID: *row.AboutDeliverableID}
	case row.AboutInvoiceID != nil:
		th.About = &store.Ref{Kind: store.KindInvoice, ID: *row.AboutInvoiceID}
	}
	return th
}

func threadRowOf(th store.Thread) threadRow {
	row := threadRow{
		OrgID:      th.OrgID,
		ID:         th.ID,
		ProjectID:  th.ProjectID,
		Subject:    th.Subject,
		Status:     string(th.Status),
		Internal:   th.Internal,
		CreatedAt:  th.CreatedAt,
		ResolvedAt: th.ResolvedAt,
	}
	if a := th.About; a != nil {
		id := a.ID
		switch a.Kind {
		case store.KindMilestone:
			row.AboutMilestoneID = &id
		case store.KindDeliverable:
			row.AboutDeliverableID = &id
		case store.KindInvoice:
			row.AboutInvoiceID = &id
		}
	}
	return row
}

type messageRow struct {
	bun.BaseModel `bun:"table:messages,alias:m"`
	total

	OrgID      string     `bun:"org_id,pk"`
	ID         string     `bun:"id,pk"`
	ThreadID   string     `bun:"thread_id,notnull"`
	AuthorName string     `bun:"author_name,notnull"`
	AuthorSide string     `bun:"author_side,notnull"`
	Body       string     `bun:"body,notnull"`
	Internal   bool       `bun:"internal,notnull"`
	CreatedAt  time.Time  `bun:"created_at,notnull"`
	EditedAt   *time.Time `bun:"edited_at"`
	UpdatedAt  time.Time  `bun:"updated_at,notnull"` // the database's: never written

	// The triggers': its thread's, and when its attachments changed.
	ThreadInternal       bool       `bun:"thread_internal,scanonly"`
	ProjectID            *string    `bun:"project_id,scanonly"`
	AttachmentsChangedAt *time.Time `bun:"attachments_changed_at,scanonly"`
	// Its attachments, in order, as a list query gathers them (JSON).
	Attachments []attachmentRow `bun:"attachments,scanonly"`
}

// messageTable is the table of messages, for the generic list and get
// (resource): clients see the messages that are not internal, of threads
// that are not; a message's project is its thread's (a trigger's copy), a
// list's total is counted, and every row read gathers its attachments.
var messageTable = resource[messageRow, store.Message]{
	kind: "message", plural: "messages", alias: "m",
	order:  "m.created_at, m.id",
	parent: "m.thread_id", project: "m.project_id",
	visible: visibleMessage,
	columns: withAttachments,
	item:    messageRow.message,
}

// withAttachments adds to a query of messages (m) their attachments, in
// order, as one JSON list.
func withAttachments(s *Store, q *bun.SelectQuery) *bun.SelectQuery {
	return q.ColumnExpr(`(SELECT coalesce(jsonb_agg(to_jsonb(a) ORDER BY a.ordinal), '[]') FROM ? AS a
			WHERE a.org_id = m.org_id AND a.message_id = m.id) AS attachments`, s.table("attachments"))
}

func (row messageRow) message() store.Message {
	return store.Message{
		ID:          row.ID,
		OrgID:       row.OrgID,
		ThreadID:    row.ThreadID,
		Author:      store.Author{Name: row.AuthorName, Side: store.AuthorSide(row.AuthorSide)},
		Body:        row.Body,
		Attachments: mapped(row.Attachments, attachmentRow.attachment),
		Internal:    row.Internal,
		CreatedAt:   row.CreatedAt.UTC(),
		EditedAt:    utc(row.EditedAt),
		UpdatedAt:   row.UpdatedAt.UTC(),
	}
}

func messageRowOf(m store.Message) messageRow {
	return messageRow{
		OrgID:      m.OrgID,
		ID:         m.ID,
		ThreadID:   m.ThreadID,
		AuthorName: m.Author.Name,
		AuthorSide: string(m.Author.Side),
		Body:       m.Body,
		Internal:   m.Internal,
		CreatedAt:  m.CreatedAt,
		EditedAt:   m.EditedAt,
	}
}

// attachmentRow is a row of attachments, and an element of the JSON list
// that a message list gathers with to_jsonb (hence the json names).
type attachmentRow struct {
	bun.BaseModel `bun:"table:attachments,alias:a"`

	OrgID       string `bun:"org_id,pk" json:"org_id"`
	ID          string `bun:"id,pk" json:"id"`
	MessageID   string `bun:"message_id,notnull" json:"message_id"`
	Ordinal     int    `bun:"ordinal,notnull" json:"ordinal"`
	FileName    string `bun:"file_name,notnull" json:"file_name"`
	ContentType string `bun:"content_type,notnull" json:"content_type"`
	SizeBytes   int64  `bun:"size_bytes,notnull" json:"size_bytes"`
	FileKey     string `bun:"file_key,notnull" json:"file_key"`
}

func (row attachmentRow) attachment() store.Attachment {
	return store.Attachment{ID: row.ID, FileName: row.FileName, ContentType: row.ContentType, SizeBytes: row.SizeBytes, FileKey: row.FileKey}
}

// PutThread inserts or replaces a thread, internal or not; the error wraps
// store.ErrNotFound when its organization, its project or its About item
// (a milestone, deliverable or invoice of the organization) does not
// exist. MessageCount, LastMessageAt and UpdatedAt given are ignored: they
// are the database's.
//
// Its UpdatedAt moves when a field changes, or when its visible messages
// do (see PutMessage). Made internal, it and its visible messages leave
// deletion records, with the project clients saw them in, at the time of
// the write; visible again, they drop those records and are dated anew,
// and so are its messages when it moves to another project (a key
// restricted to projects sees them come or go). A put of internal content
// keeps whatever record its id has: hidden and deleted look the same.
// When its About item is deleted, the thread stays, About cleared by the
// foreign key, with a new UpdatedAt.
func (s *Store) PutThread(ctx context.Context, th store.Thread) error {
	if err := th.Validate(); err != nil {
		return err
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	rows := []threadRow{threadRowOf(th)}
	return s.write(ctx, "put thread", func(s *Store) error {
		_, err := s.upserting(&rows).Exec(ctx)
		return threadWriteFailure(ctx, fmt.Sprintf("put thread %q", th.ID), err)
	})
}

// PutMessage inserts or replaces a message of an existing thread of its
// organization (an internal one too), with its attachments; the error
// wraps store.ErrNotFound when there is no such thread. Attachment ids are
// unique in an organization: an attachment with the id of another
// message's is refused with an error wrapping store.ErrInvalid, and
// nothing is written. A replacement keeps its own attachment ids, and
// those it drops are free again. UpdatedAt given is ignored.
//
// A message that is not internal moves its thread's UpdatedAt (its old
// thread's too when it moves to another) when it is new, changed (its
// attachments included), made internal or visible again; an internal one
// moves nothing clients see. Everything it changes is dated alike.
//
// It is one round trip, run as one transaction; writers to one thread
// wait for each other rather than deadlock.
func (s *Store) PutMessage(ctx context.Context, m store.Message) error {
	if err := m.Validate(); err != nil {
		return err
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	return s.write(ctx, "put message", func(s *Store) error {
		rows := []messageRow{messageRowOf(m)}
		n := len(m.Attachments)
		ids, names, types, sizes, keys := make([]string, 0, n), make([]string, 0, n), make([]string, 0, n), make([]int64, 0, n), make([]string, 0, n)
		for _, a := range m.Attachments {
			ids, names, types, sizes, keys = append(ids, a.ID), append(names, a.FileName), append(types, a.ContentType), append(sizes, a.SizeBytes), append(keys, a.FileKey)
		}
		// The message, the attachments it dropped, and the ones it has;
		// attachments_of_message is the conflict target, so that another
		// message's attachment id violates the primary key instead.
		_, err := s.db.NewRaw(`?; WITH msg AS (?), dropped AS (
			DELETE FROM ? AS a WHERE a.org_id = ? AND a.message_id = ? AND NOT (a.id = ANY (?::text[])))
		INSERT INTO ? AS a (org_id, id, message_id, ordinal, file_name, content_type, size_bytes, file_key)
		SELECT ?, n.id, ?, n.ordinal, n.file_name, n.content_type, n.size_bytes, n.file_key
		FROM unnest(?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[]) WITH ORDINALITY
			AS n (id, file_name, content_type, size_bytes, file_key, ordinal)
		ON CONFLICT ON CONSTRAINT attachments_of_message DO UPDATE SET ordinal = EXCLUDED.ordinal,
			file_name = EXCLUDED.file_name, content_type = EXCLUDED.content_type,
			size_bytes = EXCLUDED.size_bytes, file_key = EXCLUDED.file_key
		WHERE (a.ordinal, a.file_name, a.content_type, a.size_bytes, a.file_key)
			IS DISTINCT FROM (EXCLUDED.ordinal, EXCLUDED.file_name, EXCLUDED.content_type, EXCLUDED.size_bytes, EXCLUDED.file_key)`,
			s.lockThreads(m.OrgID, m.ID, m.ThreadID),
			s.upserting(&rows),
			s.table("attachments"), m.OrgID, m.ID, pgdialect.Array(ids),
			s.table("attachments"), m.OrgID, m.ID,
			pgdialect.Array(ids), pgdialect.Array(names), pgdialect.Array(types), pgdialect.Array(sizes), pgdialect.Array(keys),
		).Exec(ctx)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == foreignKeyViolation && pgErr.ConstraintName == "messages_thread_fkey" {
			return fmt.Errorf("bunstore: put message %q: thread %q of organization %q (put it first): %w", m.ID, m.ThreadID, m.OrgID, store.ErrNotFound)
		}
		return threadWriteFailure(ctx, fmt.Sprintf("put message %q", m.ID), err)
	})
}

// lockThreads is the statement that locks, in id order, the thread of the
// organization's message messageID, if any, and the thread threadID, if
// any ("" for none): what a write of that message changes.
func (s *Store) lockThreads(orgID, messageID, threadID string) *bun.SelectQuery {
	ofMessage := s.newSelect((*messageRow)(nil)).Column("m.thread_id").Where("m.org_id = ? AND m.id = ?", orgID, messageID)
	q := s.db.NewSelect().
		TableExpr("? AS t", s.table("threads")).
		Column("t.id").
		Where("t.org_id = ?", orgID)
	if threadID == "" {
		q = q.Where("t.id = (?)", ofMessage)
	} else {
		q = q.Where("t.id = ? OR t.id = (?)", threadID, ofMessage)
	}
	return q.OrderExpr("t.id").For("NO KEY UPDATE OF t")
}

// DeleteThread deletes one of the organization's threads, internal or
// not, with its messages and their attachments; the thread and each
// message that clients could see leave a deletion record. The error wraps
// store.ErrNotFound when the organization has no such thread.
func (s *Store) DeleteThread(ctx context.Context, orgID, id string) error {
	return remove[threadRow](ctx, s, "thread", "t", orgID, id)
}

// DeleteMessage deletes one of the organization's messages, internal or
// not, with its attachments; one that clients could see leaves a deletion
// record and moves its thread's UpdatedAt. The error wraps
// store.ErrNotFound when the organization has no such message. Like
// PutMessage, it locks the thread first, in the same round trip.
func (s *Store) DeleteMessage(ctx context.Context, orgID, id string) error {
	return deleting(ctx, s, "message", orgID, id, func(s *Store) executor {
		return s.db.NewRaw("?; ?", s.lockThreads(orgID, id, ""),
			s.newDelete((*messageRow)(nil)).Where("m.org_id = ? AND m.id = ?", orgID, id))
	})
}

// ListThreads returns a page of the organization's visible threads, the
// one with the latest visible message first, those without one last,
// through the index threads_list or, with filters, threads_list_status,
// threads_list_project or threads_list_project_status; with UpdatedSince,
// the changed ones, oldest change first, through the threads_changes
// indexes of the same shapes. Every one of them holds visible threads
// only.
func (s *Store) ListThreads(ctx context.Context, orgID string, q store.ThreadQuery) (store.Page[store.Thread], error) {
	return threadTable.list(ctx, s, orgID, listing{PageRequest: q.PageRequest, ListFilter: q.ListFilter, status: string(q.Status)})
}

// GetThread returns one of the organization's visible threads; the error
// wraps store.ErrNotFound when it has none with that id, or only an
// internal one.
func (s *Store) GetThread(ctx context.Context, orgID, id string) (store.Thread, error) {
	return threadTable.get(ctx, s, orgID, id, nil)
}

// ListThreadMessages returns a page of one of the organization's visible
// threads' visible messages, oldest first, through the index
// messages_list_thread (messages_changes_thread with UpdatedSince); the
// error wraps store.ErrNotFound when the organization has no such visible
// thread (an empty page checks it: see under). q.ThreadID and q.ProjectID
// are ignored.
func (s *Store) ListThreadMessages(ctx context.Context, orgID, threadID string, q store.MessageQuery) (store.Page[store.Message], error) {
	notFound := fmt.Errorf("bunstore: thread %q: %w", threadID, store.ErrNotFound)
	only, nothing := allowed(q.OnlyProjects)
	if !storable(orgID, threadID) || nothing {
		return store.Page[store.Message]{}, unmatched(ctx, notFound)
	}
	q.ProjectID = "" // the thread is the filter
	return messageTable.under(ctx, s, orgID, listing{PageRequest: q.PageRequest, ListFilter: q.ListFilter, parent: threadID,
		what: fmt.Sprintf("messages of thread %q", threadID)},
		restrict(s.newSelect((*threadRow)(nil)).Where("t.org_id = ? AND t.id = ?", orgID, threadID).Where(visibleThread), "t.project_id", only), notFound)
}

// ListMessages returns a page of the organization's visible messages of
// its visible threads, oldest first, through the index messages_list or,
// with filters, messages_list_thread (by thread, and by thread and
// project: a thread has one project) or messages_list_project; with
// UpdatedSince, the changed ones, oldest change first, through the
// messages_changes indexes of the same shapes. Every one of them holds
// visible messages only. A page and its total take one round trip,
// attachments included.
func (s *Store) ListMessages(ctx context.Context, orgID string, q store.MessageQuery) (store.Page[store.Message], error) {
	return messageTable.list(ctx, s, orgID, listing{PageRequest: q.PageRequest, ListFilter: q.ListFilter, parent: q.ThreadID})
}

// GetMessage returns one of the organization's visible messages of its
// visible threads, with its attachments, in one query; the error wraps
// store.ErrNotFound when it has none with that id, only one of internal
// content, or, with onlyProjects not nil, only one of a thread outside
// them.
func (s *Store) GetMessage(ctx context.Context, orgID, id string, onlyProjects []string) (store.Message, error) {
	return messageTable.get(ctx, s, orgID, id, onlyProjects)
}

// GetAttachment returns an attachment of one of the organization's visible
// messages of its visible threads; the error wraps store.ErrNotFound when
// it has none with that id, or only one of internal content.
func (s *Store) GetAttachment(ctx context.Context, orgID, id string) (store.Attachment, error) {
	notFound := fmt.Errorf("bunstore: attachment %q: %w", id, store.ErrNotFound)
	if !storable(orgID, id) {
		return store.Attachment{}, unmatched(ctx, notFound)
	}
	ctx, cancel := s.query(ctx)
	defer cancel()
	var row struct {
		attachmentRow `bun:",extend"`
		ProjectID     *string `bun:"project_id,scanonly"` // of the message's thread, for a key restricted to projects
	}
	err := s.newSelect(&row).
		ColumnExpr("a.*").
		ColumnExpr("m.project_id").
		Join("JOIN ? AS m ON m.org_id = a.org_id AND m.id = a.message_id", s.table("messages")).
		Where("a.org_id = ? AND a.id = ?", orgID, id).
		Where(visibleMessage).
		Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Attachment{}, notFound
	}
	if err != nil {
		return store.Attachment{}, failure(ctx, store.ErrUnavailable, fmt.Sprintf("attachment %q", id), err)
	}
	a := row.attachment()
	a.ProjectID = row.ProjectID
	return a, nil
}

// threadWriteFailure is the error of a thread or message write: nil for
// none; a reference to a missing row wraps store.ErrNotFound, an
// attachment id of another message store.ErrInvalid, and any other error
// is failure's.
func threadWriteFailure(ctx context.Context, what string, err error) error {
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pgErr) && pgErr.Code == foreignKeyViolation:
		return fmt.Errorf("bunstore: %s: an item it names does not exist (put it first): %s: %w", what, pgErr.Detail, store.ErrNotFound)
	case errors.As(err, &pgErr) && pgErr.Code == uniqueViolation && pgErr.ConstraintName == "attachments_pkey":
		return fmt.Errorf("bunstore: %s: an attachment id is another message's (attachment ids are unique in an organization): %s: %w", what, pgErr.Detail, store.ErrInvalid)
	}
	return failure(ctx, store.ErrUnavailable, what, err)
}
