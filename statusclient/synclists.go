package statusclient

import (
	"context"
	"maps"
)

// syncList is a list that Sync keeps in a map of the Replica with one
// cursor. It is declared once, by flatList, and every step of Sync (read, scope,
// deletion, load) goes through it, so that a new list is one line of
// syncLists (and its Replica and SyncCursor fields).
type syncList struct {
	name string       // its word in SyncCursor.OutOfScope: "deliverables"
	kind DeletionType // its items' type in the deletions feed
	// read reads the list's changes into r from its cursor.
	read func(ctx context.Context, s *syncer, r *Replica) error
	// cursor is where its cursor is in c.
	cursor func(c *SyncCursor) *ListCursor
	// init makes its map of r when nil; size counts its items in r;
	// reset empties them and its cursor.
	init  func(r *Replica)
	size  func(r *Replica) int
	reset func(r *Replica)
	// remove deletes the item id from r.
	remove func(r *Replica, id string)
	// ofProject deletes from r the items of the project id: the
	// contract's cascade; nil for a list whose items belong to no
	// project, or that cascades by itself (the threads, see drop).
	ofProject func(r *Replica, id string)
	// gone counts the items of old that fresh does not have.
	gone func(old, fresh *Replica) int
}

// flatList declares the list at path, of items of type kind, kept in the
// map items of a Replica from the cursor cursor of its SyncCursor.
// project, when not nil, is the project an item belongs to: a deleted
// project takes its items from the Replica.
func flatList[T item](name string, kind DeletionType, path string, items func(*Replica) *map[string]T, cursor func(*SyncCursor) *ListCursor, project func(T) string) syncList {
	l := syncList{
		name:   name,
		kind:   kind,
		cursor: cursor,
		read: func(ctx context.Context, s *syncer, r *Replica) error {
			m := *items(r)
			next, err := readList(ctx, s, path, "updatedSince", *cursor(&r.Cursor), true, func(v T) {
				m[v.key()] = v
				s.stats.Upserted++
			})
			if err == nil {
				*cursor(&r.Cursor) = next // moved on only when the read is complete
			}
			return err
		},
		init:   func(r *Replica) { initMap(items(r)) },
		size:   func(r *Replica) int { return len(*items(r)) },
		reset:  func(r *Replica) { clear(*items(r)); *cursor(&r.Cursor) = ListCursor{} },
		remove: func(r *Replica, id string) { delete(*items(r), id) },
		gone:   func(old, fresh *Replica) int { return gone(*items(old), *items(fresh)) },
	}
	if project != nil {
		l.ofProject = func(r *Replica, id string) {
			maps.DeleteFunc(*items(r), func(_ string, v T) bool { return project(v) == id })
		}
	}
	return l
}

// The lists of a Replica: projectList and milestoneList, which Sync
// scopes together (see scoped), and syncLists, every list in the order
// Sync reads them.
var (
	projectList = flatList("projects", DeletionProject, projects.path,
		func(r *Replica) *map[string]Project { return &r.Projects },
		func(c *SyncCursor) *ListCursor { return &c.Projects }, nil)
	milestoneList = flatList("milestones", DeletionMilestone, orgMilestones.path,
		func(r *Replica) *map[string]Milestone { return &r.Milestones },
		func(c *SyncCursor) *ListCursor { return &c.Milestones },
		func(m Milestone) string { return m.ProjectID })
	syncLists = []syncList{projectList, milestoneList,
		flatList("deliverables", DeletionDeliverable, deliverables.path,
			func(r *Replica) *map[string]Deliverable { return &r.Deliverables },
			func(c *SyncCursor) *ListCursor { return &c.Deliverables },
			func(d Deliverable) string { return d.ProjectID }),
		flatList("invoices", DeletionInvoice, invoices.path,
			func(r *Replica) *map[string]Invoice { return &r.Invoices },
			func(c *SyncCursor) *ListCursor { return &c.Invoices },
			nil), // an invoice outlives its project, which the server unsets
		flatList("threads", DeletionThread, threads.path,
			func(r *Replica) *map[string]Thread { return &r.Threads },
			func(c *SyncCursor) *ListCursor { return &c.Threads }, nil),
		flatList("messages", DeletionMessage, messages.path,
			func(r *Replica) *map[string]Message { return &r.Messages },
			func(c *SyncCursor) *ListCursor { return &c.Messages }, nil),
	}
)
