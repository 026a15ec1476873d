package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/clientstatus/clientstatus/store"
)

// checkThreads is check's part for threads and messages: a thread's
// project and about item exist in its organization, a message's thread
// exists, and ids (attachments' too) are unique per organization. known
// and owner are check's. It gives threads without orgId their project's
// organization and messages without one their thread's.
func (ds *dataset) checkThreads(known func(string) error, owner func(*string, string) error) error {
	type owned struct{ orgID, id string }
	items := map[store.Kind]map[owned]bool{store.KindMilestone: {}, store.KindDeliverable: {}, store.KindInvoice: {}}
	for _, m := range ds.milestones {
		items[store.KindMilestone][owned{m.OrgID, m.ID}] = true
	}
	for _, d := range ds.deliverables {
		items[store.KindDeliverable][owned{d.OrgID, d.ID}] = true
	}
	for _, inv := range ds.invoices {
		items[store.KindInvoice][owned{inv.OrgID, inv.ID}] = true
	}
	threads := map[owned]bool{}
	threadOrgs := map[string][]string{} // thread id -> organizations that have one
	for i := range ds.threads {
		t := &ds.threads[i]
		err := func() error {
			switch {
			case t.OrgID == "" && t.ProjectID == nil:
				return errors.New("orgId is required for a thread without a project")
			case t.OrgID != "":
				if err := known(t.OrgID); err != nil {
					return err
				}
			}
			if t.ProjectID != nil && *t.ProjectID != "" {
				if err := owner(&t.OrgID, *t.ProjectID); err != nil {
					return err
				}
			}
			if threads[owned{t.OrgID, t.ID}] {
				return fmt.Errorf("duplicate id in organization %q", t.OrgID)
			}
			if err := t.Validate(); err != nil {
				return err
			}
			if a := t.About; a != nil && !items[a.Kind][owned{t.OrgID, a.ID}] {
				return fmt.Errorf("about: unknown %s %q in organization %q", a.Kind, a.ID, t.OrgID)
			}
			threads[owned{t.OrgID, t.ID}] = true
			threadOrgs[t.ID] = append(threadOrgs[t.ID], t.OrgID)
			return nil
		}()
		if err != nil {
			return fmt.Errorf("%s: %w", itemName("threads", i, t.ID), err)
		}
	}
	messages := map[owned]bool{}
	attachments := map[owned]string{} // attachment -> its message's id
	for i := range ds.messages {
		m := &ds.messages[i]
		err := func() error {
			if m.OrgID != "" {
				if err := known(m.OrgID); err != nil {
					return err
				}
			}
			switch in := threadOrgs[m.ThreadID]; {
			case len(in) == 0:
				return fmt.Errorf("unknown thread %q", m.ThreadID)
			case m.OrgID == "" && len(in) > 1:
				return fmt.Errorf("thread id %q is used by organizations %q: give orgId", m.ThreadID, in)
			case m.OrgID == "":
				m.OrgID = in[0]
			case !threads[owned{m.OrgID, m.ThreadID}]:
				return fmt.Errorf("thread %q belongs to organization %q, not %q", m.ThreadID, in[0], m.OrgID)
			}
			if messages[owned{m.OrgID, m.ID}] {
				return fmt.Errorf("duplicate id in organization %q", m.OrgID)
			}
			messages[owned{m.OrgID, m.ID}] = true
			for j, a := range m.Attachments {
				if other, ok := attachments[owned{m.OrgID, a.ID}]; ok {
					return fmt.Errorf("attachments[%d]: id %q is message %q's already (attachment ids are unique in an organization)", j, a.ID, other)
				}
				attachments[owned{m.OrgID, a.ID}] = m.ID
			}
			return nil
		}()
		if err != nil {
			return fmt.Errorf("%s: %w", itemName("messages", i, m.ID), err)
		}
	}
	return nil
}

func parseThread(raw json.RawMessage) (store.Thread, error) {
	var v threadJSON
	if err := decodeStrict(bytes.NewReader(raw), &v); err != nil {
		return store.Thread{}, err
	}
	t := store.Thread{ID: v.ID, OrgID: v.OrgID, ProjectID: v.ProjectID, Subject: v.Subject, Status: store.ThreadStatus(v.Status)}
	if strings.TrimSpace(v.Subject) == "" {
		return t, errors.New("subject is required")
	}
	// Required, so that a thread an export forgot to mark is not shown to
	// clients by default: internal notes must never leak.
	if v.Internal == nil {
		return t, errors.New("internal is required (true or false)")
	}
	t.Internal = *v.Internal
	if len(v.About) > 0 && string(v.About) != "null" {
		var a aboutJSON
		if err := decodeStrict(bytes.NewReader(v.About), &a); err != nil {
			return t, fmt.Errorf("about: %w", err)
		}
		t.About = &store.Ref{Kind: store.Kind(a.Type), ID: a.ID}
	}
	var err error
	if t.CreatedAt, err = requiredTime("createdAt", v.CreatedAt); err != nil {
		return t, err
	}
	if t.ResolvedAt, err = optionalTime("resolvedAt", v.ResolvedAt); err != nil {
		return t, err
	}
	if _, err = updatedAt(v.UpdatedAt); err != nil {
		return t, err
	}
	if t.Status == store.ThreadResolved && t.ResolvedAt == nil {
		return t, errors.New("a resolved thread needs resolvedAt")
	}
	if t.Status == store.ThreadOpen && t.ResolvedAt != nil {
		return t, errors.New("an open thread has no resolvedAt (null)")
	}
	return t, nil // validated by check, once its organization is known
}

// messageItem is a message of a data file and the content of each of its
// attachments, in order.
type messageItem struct {
	store.Message
	contents [][]byte
}

func parseMessage(raw json.RawMessage) (messageItem, error) {
	var v messageJSON
	if err := decodeStrict(bytes.NewReader(raw), &v); err != nil {
		return messageItem{}, err
	}
	m := messageItem{Message: store.Message{ID: v.ID, OrgID: v.OrgID, ThreadID: v.ThreadID}}
	if v.ThreadID == "" {
		return m, errors.New("threadId is required")
	}
	if len(v.Author) == 0 || string(v.Author) == "null" {
		return m, errors.New(`author is required ({"name": "...", "side": "agency" or "client"})`)
	}
	var a authorJSON
	if err := decodeStrict(bytes.NewReader(v.Author), &a); err != nil {
		return m, fmt.Errorf("author: %w", err)
	}
	m.Author = store.Author{Name: a.Name, Side: store.AuthorSide(a.Side)}
	if v.Body == nil {
		return m, errors.New("body is required (plain text)")
	}
	m.Body = *v.Body
	if v.Internal == nil {
		return m, errors.New("internal is required (true or false)")
	}
	m.Internal = *v.Internal
	var err error
	if m.CreatedAt, err = requiredTime("createdAt", v.CreatedAt); err != nil {
		return m, err
	}
	if m.EditedAt, err = optionalTime("editedAt", v.EditedAt); err != nil {
		return m, err
	}
	if _, err = updatedAt(v.UpdatedAt); err != nil {
		return m, err
	}
	m.Attachments = []store.Attachment{}
	for j, raw := range v.Attachments {
		var f attachmentJSON
		if err := decodeStrict(bytes.NewReader(raw), &f); err != nil {
			return m, fmt.Errorf("attachments[%d]: %w", j, err)
		}
		switch {
		case f.ID == "":
			return m, fmt.Errorf("attachments[%d]: id is required", j)
		case strings.TrimSpace(f.FileName) == "":
			return m, fmt.Errorf("attachments[%d] (id %q): fileName is required", j, f.ID)
		case f.Content == nil:
			return m, fmt.Errorf("attachments[%d] (id %q): content is required (the file's bytes, as a string)", j, f.ID)
		}
		content := []byte(*f.Content)
		ct := http.DetectContentType(content)
		if f.ContentType != nil {
			ct = *f.ContentType
		}
		m.Attachments = append(m.Attachments, store.Attachment{ID: f.ID, FileName: f.FileName, ContentType: ct, SizeBytes: int64(len(content))})
		m.contents = append(m.contents, content)
	}
	return m, nil // validated once check has given it its organization
}

// attachFiles gives the i-th message's attachments their files: a FileKey
// (see attachmentKey) whose bytes are contents, in order.
func (ds *dataset) attachFiles(i int, contents [][]byte) {
	m := &ds.messages[i]
	for j, content := range contents {
		a := &m.Attachments[j]
		a.FileKey = attachmentKey(m.OrgID, a.ID, content)
		ds.content[a.FileKey] = content
	}
}
