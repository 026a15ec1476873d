package statusclient

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"
)

// Replica is a copy of everything an API key can see, which Client.Sync
// keeps equal to the server's: plain maps by id, to read as they are. The
// zero Replica is ready to use; its first Sync loads everything.
//
// A Replica is not safe for concurrent use: do not read it while a Sync
// runs on it. To keep it across runs of a program, save it whole (the maps
// and the Cursor: encoding/json does) and give it back to Sync.
type Replica struct {
	Projects     map[string]Project
	Milestones   map[string]Milestone
	Deliverables map[string]Deliverable
	Invoices     map[string]Invoice
	Threads      map[string]Thread
	Messages     map[string]Message // of every thread, by message id

	// Cursor says where each part of the copy was read up to. Sync alone
	// changes it; a zero Cursor makes the next Sync load everything.
	Cursor SyncCursor
}

// SyncCursor says where Sync left off, one ListCursor per list that it
// reads: each list is read at its own moment, so a single cursor for all
// of them could pass over a change made to one list after it was read.
type SyncCursor struct {
	// Deletions is the cursor of the deletions feed. Zero before the
	// first Sync: the next Sync then loads everything.
	Deletions    ListCursor
	Projects     ListCursor
	Milestones   ListCursor // of /v1/milestones, every project's
	Deliverables ListCursor
	Invoices     ListCursor
	Threads      ListCursor
	Messages     ListCursor
	// OutOfScope names the lists the key may not read, sorted: those the
	// server answered 403 INSUFFICIENT_SCOPE ("projects", which holds the
	// milestones too, "deliverables", "invoices", "threads",
	// "messages"). Sync no longer asks them until its next full load, and
	// the Replica holds none of their items. A key's scopes are fixed when
	// it is minted; use a new Replica (or a zero Cursor) with a new key.
	OutOfScope []string
}

// ListCursor is where the reading of one list left off.
type ListCursor struct {
	// Since is where the next read asks from, inclusively: the smallest
	// meta.syncedThrough of the pages the last read walked (see
	// Client.Sync), or, when that read found nothing new, the Since it
	// asked from, kept. Zero means the list is read from the start.
	Since time.Time
	// ETag is the tag of the answer to that next read, when this read
	// already got it and it was the whole list; "" otherwise. Sync sends
	// it as If-None-Match: an unchanged list answers 304, which costs no
	// rate budget.
	ETag string
}

// SyncStats says what a Sync did.
type SyncStats struct {
	// Full is true when the Sync loaded everything afresh: the first
	// Sync of a Replica, and one after the server said the cursor was
	// older than the deletions it keeps (ErrResyncRequired).
	Full bool
	// Upserted counts the items received and written into the replica.
	// Bounds are inclusive, so an item stamped at a cursor comes again
	// (unchanged) and counts again.
	Upserted int
	// Deleted counts the items removed from the replica.
	Deleted int
	// Requests counts the answers received, NotModified those of them
	// that were 304 Not Modified, which the server does not count against
	// the rate budget.
	Requests    int
	NotModified int
	// Rate is the organization's rate budget as of the last answer.
	Rate Rate
	// OutOfScope is the Replica's SyncCursor.OutOfScope after the Sync:
	// the lists the key may not read, which Sync passed over.
	OutOfScope []string
}

// epoch is the updatedSince of a full load: before any item. A load in
// UpdatedAt order, walked by cursor, cannot lose an item that changes
// while it walks, where a walk of pages in the lists' own order could.
var epoch = time.Unix(0, 0).UTC()

// errReload is returned by Sync's incremental steps when only a full load
// can make the replica equal to the server's again.
var errReload = errors.New("statusclient: full load needed")

// Sync makes r equal to what the server shows the Client's key: it applies
// the deletions recorded since the last Sync, then each list's changes
// (upsert by id), and keeps in r.Cursor where each list left off (the
// smallest meta.syncedThrough of the pages it walked). The first Sync of a
// Replica, and one whose cursor the server no longer covers
// (ErrResyncRequired), loads everything, replacing r only once it has read
// it all (SyncStats.Full). Lists a restricted key may not read are passed
// over (SyncStats.OutOfScope).
//
// An error names the list and wraps the failed call's error; r then holds
// what was applied so far, and the next Sync completes it. The algorithm,
// its cost in requests and what it guarantees are in docs/sync.md.
func (c *Client) Sync(ctx context.Context, r *Replica) (SyncStats, error) {
	if r == nil {
		return SyncStats{}, errors.New("statusclient: Sync: nil *Replica")
	}
	r.init()
	s := &syncer{c: c}
	err := errReload // a Replica never synced
	if !r.Cursor.Deletions.Since.IsZero() {
		err = s.changes(ctx, r)
	}
	if errors.Is(err, errReload) {
		err = s.load(ctx, r)
	}
	s.stats.OutOfScope = slices.Clone(r.Cursor.OutOfScope)
	return s.stats, err
}

// init makes the nil maps of r, as in a zero Replica or one decoded from
// JSON with an empty map left out.
func (r *Replica) init() {
	for _, l := range syncLists {
		l.init(r)
	}
}

func initMap[V any](m *map[string]V) {
	if *m == nil {
		*m = make(map[string]V)
	}
}

// syncer is one run of Sync.
type syncer struct {
	c     *Client
	stats SyncStats
	// through is the smallest syncedThrough of the pages of changes
	// walked so far.
	through time.Time
}

// synced notes the syncedThrough of a page of changes.
func (s *syncer) synced(t time.Time) {
	if s.through.IsZero() || t.Before(s.through) {
		s.through = t
	}
}

// saw counts an answer.
func (s *syncer) saw(resp *Response) {
	if resp == nil {
		return
	}
	s.stats.Requests++
	s.stats.Rate = resp.Rate
	if resp.StatusCode == http.StatusNotModified {
		s.stats.NotModified++
	}
}

// changes is an incremental Sync. It returns errReload when only a full
// load can make r equal to the server's again.
func (s *syncer) changes(ctx context.Context, r *Replica) error {
	cur := &r.Cursor
	next, err := readList(ctx, s, deletions.path, "since", cur.Deletions, false, func(d Deletion) { s.drop(r, d) })
	switch {
	case isParamRefused(err, "since"): // older than the server keeps
		return errReload
	case err != nil:
		return fmt.Errorf("statusclient: Sync: deletions: %w", err)
	}
	cur.Deletions = next
	return s.lists(ctx, r)
}

// load is a full load: it reads everything into a new Replica and
// replaces r's content with it once all is read.
func (s *syncer) load(ctx context.Context, r *Replica) error {
	s.stats.Full = true
	deleted := s.stats.Deleted
	fresh := loading()
	err := s.lists(ctx, fresh)
	if err == nil {
		err = s.settle(ctx, fresh)
	}
	if err != nil {
		return err
	}
	s.stats.Deleted = deleted
	for _, l := range syncLists {
		s.stats.Deleted += l.gone(r, fresh)
	}
	*r = *fresh
	return nil
}

// settle ends a load: it drops from r what was deleted while the load
// ran, and sets r's deletions cursor. Every deletion that a page of the
// load could not see is stamped at or after that page's syncedThrough:
// settle reads the deletions from the smallest syncedThrough of the
// load's pages.
func (s *syncer) settle(ctx context.Context, r *Replica) error {
	from := s.through
	if from.Before(epoch) {
		from = epoch
	}
	next, err := readList(ctx, s, deletions.path, "since", ListCursor{Since: from}, false, func(d Deletion) { s.drop(r, d) })
	switch {
	case isParamRefused(err, "since"):
		next = ListCursor{}
	case err != nil:
		return fmt.Errorf("statusclient: Sync: deletions: %w", err)
	}
	r.Cursor.Deletions = next
	return nil
}

// loading returns an empty Replica whose lists are all to be read from
// epoch.
func loading() *Replica {
	r := &Replica{}
	for _, l := range syncLists {
		*l.cursor(&r.Cursor) = ListCursor{Since: epoch}
	}
	r.init()
	return r
}

// gone counts the keys of old that are not in new.
func gone[V any](old, new map[string]V) int {
	n := 0
	for id := range old {
		if _, ok := new[id]; !ok {
			n++
		}
	}
	return n
}

// lists reads the changes of every list into r, each from its cursor.
// A list out of the key's scopes is passed over (see scoped).
func (s *syncer) lists(ctx context.Context, r *Replica) error {
	for _, l := range syncLists {
		if err := s.scoped(ctx, r, l); err != nil {
			return err
		}
	}
	return nil
}

// scoped reads the list l, unless r's cursor says the key may not read
// it. When the server refuses it with 403 INSUFFICIENT_SCOPE, the list is
// recorded as out of scope, emptied (the projects with their
// milestones), and passed over: the key syncs what it may read. Any other
// error is returned, naming the list.
func (s *syncer) scoped(ctx context.Context, r *Replica, l syncList) error {
	if slices.Contains(r.Cursor.OutOfScope, l.name) || l.kind == DeletionMilestone && slices.Contains(r.Cursor.OutOfScope, projectList.name) {
		return nil // the milestones need the projects' scope
	}
	err := l.read(ctx, s, r)
	if ErrorCodeOf(err) != CodeInsufficientScope {
		if err != nil {
			return fmt.Errorf("statusclient: Sync: %s: %w", l.name, err)
		}
		return nil
	}
	r.Cursor.OutOfScope = append(r.Cursor.OutOfScope, l.name)
	slices.Sort(r.Cursor.OutOfScope)
	s.stats.Deleted += l.size(r)
	l.reset(r)
	if l.kind == DeletionProject {
		s.stats.Deleted += milestoneList.size(r)
		milestoneList.reset(r)
	}
	return nil
}

// drop applies a deletion record to r, counting what it removes.
func (s *syncer) drop(r *Replica, d Deletion) {
	before := r.size()
	r.drop(d)
	s.stats.Deleted += before - r.size()
}

// drop removes from r the item d names, with the contract's cascades. A
// record of a type Sync does not know is passed over.
func (r *Replica) drop(d Deletion) {
	for _, l := range syncLists {
		if l.kind == d.Type {
			l.remove(r, d.ID)
		}
		if d.Type == DeletionProject && l.ofProject != nil {
			l.ofProject(r, d.ID)
		}
	}
	switch d.Type {
	case DeletionProject:
		for id, t := range r.Threads {
			if t.ProjectID != nil && *t.ProjectID == d.ID {
				r.drop(Deletion{Type: DeletionThread, ID: id})
			}
		}
	case DeletionThread:
		maps.DeleteFunc(r.Messages, func(_ string, m Message) bool { return m.ThreadID == d.ID })
	}
}

// size counts the items of r.
func (r *Replica) size() int {
	n := 0
	for _, l := range syncLists {
		n += l.size(r)
	}
	return n
}
