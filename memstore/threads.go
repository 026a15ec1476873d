package memstore

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// the Store's communication threads (Threads, ThreadWriter). Each
// organization keeps every thread and message as put and, beside them,
// the visible ones in list order, which every write settles and every read
// looks at only, so internal content cannot reach an answer.

var (
	_ store.Threads      = (*Store)(nil)
	_ store.ThreadWriter = (*Store)(nil)
)

// threadStore is one organization's threads and messages.
type threadStore struct {
	threads     map[string]*storedThread  // every thread, internal ones too
	messages    map[string]*store.Message // every message, internal ones too, as put
	attachments map[string]string         // the id of the message that has each attachment id

	shown     sorted[store.Thread]  // the visible threads, as clients see them
	shownMsgs sorted[store.Message] // the visible messages of visible threads
}

// storedThread is a thread as put, with MessageCount, LastMessageAt and
// UpdatedAt left zero, and the ids of its messages, internal ones too.
type storedThread struct {
	store.Thread
	messages map[string]bool
}

func newThreadStore() threadStore {
	return threadStore{
		threads:     make(map[string]*storedThread),
		messages:    make(map[string]*store.Message),
		attachments: make(map[string]string),
		shown: newSorted(threadOrder, func(t *store.Thread) string { return t.ID },
			func(t *store.Thread) *time.Time { return &t.UpdatedAt }),
		shownMsgs: newSorted(messageOrder, func(m *store.Message) string { return m.ID },
			func(m *store.Message) *time.Time { return &m.UpdatedAt }),
	}
}

// PutThread inserts or replaces a thread of an existing organization,
// whose project (unless nil) and About item exist, else ErrNotFound.
// MessageCount, LastMessageAt and UpdatedAt given are ignored. Making a
// thread internal, or visible again, is a put (docs/store.md).
func (m *Store) PutThread(ctx context.Context, th store.Thread) error {
	return m.writing(ctx, th.OrgID, func() error {
		if err := th.Validate(); err != nil {
			return err
		}
		t, err := m.owner("thread", th.ID, th.OrgID)
		if err != nil {
			return err
		}
		if th.ProjectID != nil {
			if err := t.hasProject("thread", th.ID, *th.ProjectID); err != nil {
				return err
			}
		}
		if a := th.About; a != nil && !t.hasItem(a.Kind, a.ID) {
			return fmt.Errorf("store: thread %q: about %s %q of organization %q (put it first): %w", th.ID, a.Kind, a.ID, t.org.ID, store.ErrNotFound)
		}
		ts := &t.threads
		st := ts.threads[th.ID]
		if st == nil {
			st = &storedThread{messages: make(map[string]bool)}
			ts.threads[th.ID] = st
		}
		st.Thread = copyThread(th)
		st.MessageCount, st.LastMessageAt, st.UpdatedAt = 0, nil, time.Time{}
		t.settle([]string{th.ID}, slices.Collect(maps.Keys(st.messages)), m.stamp(t))
		m.prune(t)
		return nil
	})
}

// PutMessage inserts or replaces a message of an existing thread of its
// organization, else ErrNotFound. An attachment id another message of the
// organization has is ErrInvalid. UpdatedAt given is ignored; Attachments
// comes back non-nil. A visible change moves its thread's UpdatedAt.
func (m *Store) PutMessage(ctx context.Context, msg store.Message) error {
	return m.writing(ctx, msg.OrgID, func() error {
		if err := msg.Validate(); err != nil {
			return err
		}
		t, err := m.owner("message", msg.ID, msg.OrgID)
		if err != nil {
			return err
		}
		ts := &t.threads
		if ts.threads[msg.ThreadID] == nil {
			return fmt.Errorf("store: message %q: thread %q of organization %q (put it first): %w", msg.ID, msg.ThreadID, t.org.ID, store.ErrNotFound)
		}
		for _, a := range msg.Attachments {
			if other, ok := ts.attachments[a.ID]; ok && other != msg.ID {
				return store.Invalid("message", msg.ID, "attachment id %q is message %q's (attachment ids are unique in an organization)", a.ID, other)
			}
		}
		threadIDs := []string{msg.ThreadID}
		if old := ts.messages[msg.ID]; old != nil {
			ts.unlink(old)
			if old.ThreadID != msg.ThreadID {
				threadIDs = append(threadIDs, old.ThreadID)
			}
		}
		c := copyMessage(msg)
		c.UpdatedAt = time.Time{}
		ts.link(&c)
		t.settle(threadIDs, []string{msg.ID}, m.stamp(t))
		m.prune(t)
		return nil
	})
}

// DeleteThread removes a thread, internal or not, with its messages;
// each of them that clients could see leaves a Deletion. It returns an
// error wrapping ErrNotFound when the organization has no such thread.
func (m *Store) DeleteThread(ctx context.Context, orgID, id string) error {
	return m.writing(ctx, orgID, func() error {
		t := m.orgs[orgID]
		if t == nil || t.threads.threads[id] == nil {
			return fmt.Errorf("store: thread %q: %w", id, store.ErrNotFound)
		}
		t.removeThreads([]string{id}, m.stamp(t))
		m.prune(t)
		return nil
	})
}

// DeleteMessage removes a message, internal or not; a visible one leaves
// a Deletion and moves its thread's UpdatedAt. It returns an error
// wrapping ErrNotFound when the organization has no such message.
func (m *Store) DeleteMessage(ctx context.Context, orgID, id string) error {
	return m.writing(ctx, orgID, func() error {
		var gone *store.Message
		t := m.orgs[orgID]
		if t != nil {
			gone = t.threads.messages[id]
		}
		if gone == nil {
			return fmt.Errorf("store: message %q: %w", id, store.ErrNotFound)
		}
		t.threads.unlink(gone)
		t.settle([]string{gone.ThreadID}, []string{id}, m.stamp(t))
		m.prune(t)
		return nil
	})
}

// ListThreads returns a page of the organization's visible threads; an
// unknown organization has none.
func (m *Store) ListThreads(ctx context.Context, orgID string, q store.ThreadQuery) (store.Page[store.Thread], error) {
	return reading(ctx, m, func() (store.Page[store.Thread], error) {
		t := m.orgs[orgID]
		var s *sorted[store.Thread]
		if t != nil {
			s = &t.threads.shown
		}
		return listed(m, t, s, threadFields, q.PageRequest, string(q.Status), q.ListFilter, nil, copyThread)
	})
}

// threadFields are a thread's fields that a list's filters test: an
// organization-wide thread is in no project.
var threadFields = fields[store.Thread]{
	status:  func(th *store.Thread) string { return string(th.Status) },
	project: func(th *store.Thread) string { return deref(th.ProjectID) },
}

// GetThread returns one of the organization's visible threads, or
// ErrNotFound.
func (m *Store) GetThread(ctx context.Context, orgID, id string) (store.Thread, error) {
	return reading(ctx, m, func() (store.Thread, error) {
		if t := m.orgs[orgID]; t != nil {
			if th, ok := t.threads.shown.byID[id]; ok {
				return copyThread(*th), nil
			}
		}
		return store.Thread{}, fmt.Errorf("store: thread %q: %w", id, store.ErrNotFound)
	})
}

// ListThreadMessages returns a page of one visible thread's visible
// messages, or ErrNotFound when the organization has no such visible
// thread.
func (m *Store) ListThreadMessages(ctx context.Context, orgID, threadID string, q store.MessageQuery) (store.Page[store.Message], error) {
	return reading(ctx, m, func() (store.Page[store.Message], error) {
		t := m.orgs[orgID]
		if t == nil || !t.threads.shown.has(threadID) || !store.InProjects(q.OnlyProjects, t.threads.projectOf(threadID)) {
			return store.Page[store.Message]{}, fmt.Errorf("store: thread %q: %w", threadID, store.ErrNotFound)
		}
		q.ThreadID, q.ProjectID = threadID, "" // the thread is the filter
		return m.listMessages(t, q)
	})
}

// ListMessages returns a page of the organization's visible messages
// across its visible threads; an unknown organization has none.
func (m *Store) ListMessages(ctx context.Context, orgID string, q store.MessageQuery) (store.Page[store.Message], error) {
	return reading(ctx, m, func() (store.Page[store.Message], error) {
		return m.listMessages(m.orgs[orgID], q)
	})
}

// listMessages is ListMessages of t (nil for none) under mu: a message is
// in its thread's project.
func (m *Store) listMessages(t *tenant, q store.MessageQuery) (store.Page[store.Message], error) {
	var s *sorted[store.Message]
	if t != nil {
		s = &t.threads.shownMsgs
	}
	var keep func(*store.Message) bool
	if q.ThreadID != "" {
		keep = func(msg *store.Message) bool { return msg.ThreadID == q.ThreadID }
	}
	a := fields[store.Message]{project: func(msg *store.Message) string { return t.threads.projectOf(msg.ThreadID) }}
	return listed(m, t, s, a, q.PageRequest, "", q.ListFilter, keep, copyMessage)
}

// GetAttachment returns an attachment of one of the organization's
// visible messages, or ErrNotFound.
func (m *Store) GetAttachment(ctx context.Context, orgID, id string) (store.Attachment, error) {
	return reading(ctx, m, func() (store.Attachment, error) {
		if t := m.orgs[orgID]; t != nil {
			if msg := t.threads.shownMsgs.byID[t.threads.attachments[id]]; msg != nil {
				for _, a := range msg.Attachments {
					if a.ID == id {
						if project := t.threads.projectOf(msg.ThreadID); project != "" {
							a.ProjectID = &project // for a key restricted to projects
						}
						return a, nil
					}
				}
			}
		}
		return store.Attachment{}, fmt.Errorf("store: attachment %q: %w", id, store.ErrNotFound)
	})
}

// hasItem reports whether the organization has the item of a kind a
// thread may be about (Kind.About) with that id.
func (t *tenant) hasItem(kind store.Kind, id string) bool {
	if !kind.About() {
		return false
	}
	i := slices.IndexFunc(t.rows, func(tb kindTable) bool { return tb.kind == kind })
	return i >= 0 && t.rows[i].has(id)
}

// link stores a message, indexed by its thread and its attachments.
func (ts *threadStore) link(msg *store.Message) {
	ts.messages[msg.ID] = msg
	ts.threads[msg.ThreadID].messages[msg.ID] = true
	for _, a := range msg.Attachments {
		ts.attachments[a.ID] = msg.ID
	}
}

// unlink removes a stored message and its index entries.
func (ts *threadStore) unlink(msg *store.Message) {
	delete(ts.messages, msg.ID)
	if st := ts.threads[msg.ThreadID]; st != nil {
		delete(st.messages, msg.ID)
	}
	for _, a := range msg.Attachments {
		delete(ts.attachments, a.ID)
	}
}

// visible reports whether clients may see a stored message: neither it
// nor its thread is internal.
func (ts *threadStore) visible(msg *store.Message) bool {
	st := ts.threads[msg.ThreadID]
	return !msg.Internal && st != nil && !st.Internal
}

// projectOf returns the project of a thread as clients see it, "" for an
// organization-wide thread or one they do not see.
func (ts *threadStore) projectOf(threadID string) string {
	if th := ts.shown.byID[threadID]; th != nil && th.ProjectID != nil {
		return *th.ProjectID
	}
	return ""
}

// removeThreads deletes stored threads with their messages and settles
// what clients see.
func (t *tenant) removeThreads(ids []string, at time.Time) {
	ts := &t.threads
	var msgIDs []string
	for _, id := range ids {
		for mid := range ts.threads[id].messages {
			msgIDs = append(msgIDs, mid)
			ts.unlink(ts.messages[mid])
		}
		delete(ts.threads, id)
	}
	t.settle(ids, msgIDs, at)
}

// deleteProjectThreads removes the project's threads, internal ones too,
// with their messages: DeleteProject's cascade.
func (t *tenant) deleteProjectThreads(projectID string, at time.Time) {
	var ids []string
	for id, st := range t.threads.threads {
		if st.ProjectID != nil && *st.ProjectID == projectID {
			ids = append(ids, id)
		}
	}
	t.removeThreads(ids, at)
}

// dropStaleAbouts clears the About of every thread about a milestone,
// deliverable or invoice that no longer exists: the thread stays, as an
// invoice stays when its project is deleted, and clients see it change.
// The Delete methods call it after removing items.
func (t *tenant) dropStaleAbouts(at time.Time) {
	var ids []string
	for id, st := range t.threads.threads {
		if a := st.About; a != nil && !t.hasItem(a.Kind, a.ID) {
			st.About = nil
			ids = append(ids, id)
		}
	}
	t.settle(ids, nil, at)
}

// settle brings what clients see of the threads and messages named in
// line with what is stored, after a write dated at: what became visible or
// changed is dated at (its thread too), what is no longer visible leaves a
// deletion record with the project clients saw it in, and what is visible
// drops its record. msgIDs are the messages the write may have changed;
// threadIDs the threads it put or removed and those such a message is or
// was in.
func (t *tenant) settle(threadIDs, msgIDs []string, at time.Time) {
	ts := &t.threads
	touched := make(map[string]bool) // threads whose visible messages changed
	for _, id := range msgIDs {
		old := ts.shownMsgs.byID[id]
		msg := ts.messages[id]
		if msg == nil || !ts.visible(msg) {
			if old != nil {
				t.record(store.KindMessage, id, ts.projectOf(old.ThreadID), at)
				ts.shownMsgs.remove(id)
				touched[old.ThreadID] = true
			}
			continue
		}
		if old != nil && ts.movedProject(msg.ThreadID) {
			ts.shownMsgs.remove(id) // so that put dates it anew
		}
		// Before the threads below are settled: projectOf is still the
		// project clients saw the message in.
		t.depart(store.KindMessage, id, old != nil, ts.projectOf(oldThread(old)), deref(ts.threads[msg.ThreadID].ProjectID), at)
		v := copyMessage(*msg)
		ts.shownMsgs.put(&v, at)
		if ts.shownMsgs.byID[id] != old { // put keeps the old item when nothing changed
			touched[msg.ThreadID] = true
			var left *string
			if old != nil {
				touched[old.ThreadID] = true
				left = ptr(ts.projectOf(old.ThreadID))
			}
			t.put(store.KindMessage, id, leftOr(deref(ts.threads[msg.ThreadID].ProjectID), left), msg.ThreadID, "", "", old != nil, at)
		}
		t.forget(store.KindMessage, id)
	}
	for _, id := range threadIDs {
		old := ts.shown.byID[id]
		st := ts.threads[id]
		if st == nil || st.Internal {
			if old != nil {
				t.record(store.KindThread, id, ts.projectOf(id), at)
				ts.shown.remove(id)
			}
			continue
		}
		v := copyThread(st.Thread)
		t.depart(store.KindThread, id, old != nil, ts.projectOf(id), deref(v.ProjectID), at)
		for mid := range st.messages {
			if msg := ts.shownMsgs.byID[mid]; msg != nil {
				v.MessageCount++
				if v.LastMessageAt == nil || msg.CreatedAt.After(*v.LastMessageAt) {
					v.LastMessageAt = ptr(msg.CreatedAt)
				}
			}
		}
		if touched[id] {
			ts.shown.remove(id) // so that put dates it anew, even if no field of its own changed
		}
		ts.shown.put(&v, at)
		if now := ts.shown.byID[id]; now != old {
			var left *string
			if old != nil {
				left = old.ProjectID
			}
			t.put(store.KindThread, id, leftOr(deref(now.ProjectID), left), "",
				statusOf(old, func(o *store.Thread) string { return string(o.Status) }), string(now.Status), old != nil, at)
		}
		t.forget(store.KindThread, id)
	}
}

// oldThread returns the thread of a message clients saw, or "" for none.
func oldThread(old *store.Message) string {
	if old == nil {
		return ""
	}
	return old.ThreadID
}

// movedProject reports whether a thread clients see is stored with
// another project than the one they see it in.
func (ts *threadStore) movedProject(threadID string) bool {
	th, st := ts.shown.byID[threadID], ts.threads[threadID]
	if th == nil || st == nil {
		return false
	}
	return (th.ProjectID == nil) != (st.ProjectID == nil) ||
		th.ProjectID != nil && *th.ProjectID != *st.ProjectID
}

// threadOrder is ThreadQuery's: LastMessageAt descending, threads without
// a visible message last, then ID.
func threadOrder(a, b *store.Thread) int {
	return cmp.Or(latestFirst(a.LastMessageAt, b.LastMessageAt), strings.Compare(a.ID, b.ID))
}

// messageOrder is MessageQuery's: CreatedAt ascending, then ID.
func messageOrder(a, b *store.Message) int {
	return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
}

func copyThread(t store.Thread) store.Thread {
	t.ProjectID = clonePtr(t.ProjectID)
	t.About = clonePtr(t.About)
	t.CreatedAt = kept(t.CreatedAt)
	t.ResolvedAt = utcPtr(t.ResolvedAt)
	t.LastMessageAt = utcPtr(t.LastMessageAt)
	t.UpdatedAt = kept(t.UpdatedAt)
	return t
}

// copyMessage also makes Attachments non-nil, so that a message without
// any has an empty list, as on the wire.
func copyMessage(m store.Message) store.Message {
	m.Attachments = append([]store.Attachment{}, m.Attachments...)
	m.CreatedAt = kept(m.CreatedAt)
	m.EditedAt = utcPtr(m.EditedAt)
	m.UpdatedAt = kept(m.UpdatedAt)
	return m
}
