package storetest

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// threadKind describes threads to the cases of every kind (kinds.go): an
// organization-wide thread belongs to no project, and a deleted project's
// threads go with it.
var threadKind = kindCase{
	kind:     store.KindThread,
	optional: true,
	put: func(ctx context.Context, s subject, org, id, project string, n int) error {
		return s.PutThread(ctx, store.Thread{ID: id, OrgID: org, ProjectID: optionalPtr(project),
			Subject: fmt.Sprint("About ", id, " v", n), Status: store.ThreadOpen, CreatedAt: day(1, 9)})
	},
	get: func(ctx context.Context, s subject, org, id string) (kindItem, error) {
		th, err := s.GetThread(ctx, org, id)
		return kindItem{deref(th.ProjectID), th.UpdatedAt, describe(th)}, err
	},
	list: func(org, project string, only []string, since time.Time) fetchFunc {
		return threadList(org, store.ThreadQuery{ListFilter: store.ListFilter{ProjectID: project, OnlyProjects: only, UpdatedSince: since}})
	},
	del: func(ctx context.Context, s subject, org, id string) error {
		return s.DeleteThread(ctx, org, id)
	},
}

// messageKind describes messages to the cases of every kind (kinds.go): a
// message belongs to its thread's project. Its put puts the message in a
// thread of that project (holderThread) which it puts first: a message
// moved to another project moves to another thread.
var messageKind = kindCase{
	kind:     store.KindMessage,
	optional: true,
	put: func(ctx context.Context, s subject, org, id, project string, n int) error {
		th := holderThread(project)
		if err := s.PutThread(ctx, store.Thread{ID: th, OrgID: org, ProjectID: optionalPtr(project), Subject: "Messages",
			Status: store.ThreadOpen, CreatedAt: day(1, 9)}); err != nil {
			return err
		}
		return s.PutMessage(ctx, store.Message{ID: id, OrgID: org, ThreadID: th, Author: store.Author{Name: "Ana", Side: store.SideAgency},
			Body: fmt.Sprint("Hello ", id, " v", n), CreatedAt: day(1, 10)})
	},
	get: func(ctx context.Context, s subject, org, id string) (kindItem, error) {
		m, err := s.GetMessage(ctx, org, id, nil)
		if err != nil {
			return kindItem{}, err
		}
		th, err := s.GetThread(ctx, org, m.ThreadID)
		return kindItem{deref(th.ProjectID), m.UpdatedAt, describe(m)}, err
	},
	list: func(org, project string, only []string, since time.Time) fetchFunc {
		return messageList(org, store.MessageQuery{ListFilter: store.ListFilter{ProjectID: project, OnlyProjects: only, UpdatedSince: since}})
	},
	del: func(ctx context.Context, s subject, org, id string) error {
		return s.DeleteMessage(ctx, org, id)
	},
}

// holderThread is the thread that messageKind puts a message of project
// in.
func holderThread(project string) string { return "holder-" + cmp.Or(project, "none") }

// The methods of Unimplemented for this resource (unimplemented.go).

// ListThreads fails with errors.ErrUnsupported.
func (u Unimplemented) ListThreads(ctx context.Context, _ string, _ store.ThreadQuery) (store.Page[store.Thread], error) {
	return store.Page[store.Thread]{}, u.fail(ctx, "ListThreads")
}

// GetThread fails with errors.ErrUnsupported.
func (u Unimplemented) GetThread(ctx context.Context, _ string, _ string) (store.Thread, error) {
	return store.Thread{}, u.fail(ctx, "GetThread")
}

// ListThreadMessages fails with errors.ErrUnsupported.
func (u Unimplemented) ListThreadMessages(ctx context.Context, _ string, _ string, _ store.MessageQuery) (store.Page[store.Message], error) {
	return store.Page[store.Message]{}, u.fail(ctx, "ListThreadMessages")
}

// ListMessages fails with errors.ErrUnsupported.
func (u Unimplemented) ListMessages(ctx context.Context, _ string, _ store.MessageQuery) (store.Page[store.Message], error) {
	return store.Page[store.Message]{}, u.fail(ctx, "ListMessages")
}

// GetMessage fails with errors.ErrUnsupported.
func (u Unimplemented) GetMessage(ctx context.Context, _ string, _ string, _ []string) (store.Message, error) {
	return store.Message{}, u.fail(ctx, "GetMessage")
}

// GetAttachment fails with errors.ErrUnsupported.
func (u Unimplemented) GetAttachment(ctx context.Context, _ string, _ string) (store.Attachment, error) {
	return store.Attachment{}, u.fail(ctx, "GetAttachment")
}
