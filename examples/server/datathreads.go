package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

func parseThread(r *reader, raw json.RawMessage, where string, t *store.Thread) error {
	about := func(raw json.RawMessage) error {
		var a store.Ref
		if err := r.object(raw, where+".about", opt("type", &a.Kind), opt("id", &a.ID)); err != nil {
			return fmt.Errorf("about: %w", err)
		}
		t.About = &a
		return nil
	}
	// internal is required, so that a thread an export forgot to mark is
	// not shown to clients by default: internal notes must never leak.
	if err := r.object(raw, where, opt("id", &t.ID), opt("orgId", &t.OrgID), opt("projectId", &t.ProjectID),
		opt("subject", &t.Subject), opt("status", &t.Status), opt("about", about), req("internal", &t.Internal, boolean),
		at("createdAt", &t.CreatedAt), opt("resolvedAt", &t.ResolvedAt), opt("updatedAt", new(time.Time))); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(t.Subject) == "":
		return errors.New("subject is required")
	case t.Status == store.ThreadResolved && t.ResolvedAt == nil:
		return errors.New("a resolved thread needs resolvedAt")
	case t.Status == store.ThreadOpen && t.ResolvedAt != nil:
		return errors.New("an open thread has no resolvedAt (null)")
	}
	return nil
}

// parseMessage decodes a message. Its attachments' files are kept, and
// the message validated, once check has given it its organization.
func parseMessage(r *reader, raw json.RawMessage, where string, m *store.Message) error {
	author := func(raw json.RawMessage) error {
		if err := r.object(raw, where+".author", opt("name", &m.Author.Name), opt("side", &m.Author.Side)); err != nil {
			return fmt.Errorf("author: %w", err)
		}
		return nil
	}
	var files [][]byte
	attachments := func(raw json.RawMessage) error {
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return fmt.Errorf("attachments: %w", jsonError(err))
		}
		for j, raw := range list {
			var a store.Attachment
			var contentType, content *string
			if err := r.object(raw, fmt.Sprintf("%s.attachments[%d]", where, j), opt("id", &a.ID),
				opt("fileName", &a.FileName), opt("contentType", &contentType), opt("content", &content)); err != nil {
				return fmt.Errorf("attachments[%d]: %w", j, err)
			}
			switch {
			case a.ID == "":
				return fmt.Errorf("attachments[%d]: id is required", j)
			case strings.TrimSpace(a.FileName) == "":
				return fmt.Errorf("attachments[%d] (id %q): fileName is required", j, a.ID)
			case content == nil:
				return fmt.Errorf("attachments[%d] (id %q): content is required (the file's bytes, as a string)", j, a.ID)
			}
			a.SizeBytes, a.ContentType = int64(len(*content)), http.DetectContentType([]byte(*content))
			if contentType != nil {
				a.ContentType = *contentType
			}
			m.Attachments = append(m.Attachments, a)
			files = append(files, []byte(*content))
		}
		return nil
	}
	m.Attachments = []store.Attachment{}
	if err := r.object(raw, where, opt("id", &m.ID), opt("orgId", &m.OrgID), opt("threadId", &m.ThreadID),
		req("author", author, `{"name": "...", "side": "agency" or "client"}`), req("body", &m.Body, "plain text"),
		req("internal", &m.Internal, boolean), at("createdAt", &m.CreatedAt), opt("editedAt", &m.EditedAt),
		opt("updatedAt", new(time.Time)), opt("attachments", attachments)); err != nil {
		return err
	}
	if m.ThreadID == "" {
		return errors.New("threadId is required")
	}
	r.later(func(ds *dataset) error {
		for j, content := range files {
			a := &m.Attachments[j]
			a.FileKey = ds.keep("attachments", m.OrgID, a.ID, content)
		}
		if err := m.Validate(); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		return nil
	})
	return nil
}
