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
	Threads      map[string]Thread  // empty from a server that holds no threads
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
	// first Sync and on a server that tracks no changes: the next Sync
	// then loads everything.
	Deletions ListCursor
	Projects  ListCursor
	// Milestones holds the cursor of /v1/milestones under the key "";
	// from a server without that route, one cursor by project id.
	Milestones   map[string]ListCursor
	Deliverables ListCursor
	Invoices     ListCursor
	Threads      ListCursor
	Messages     ListCursor
	// NoThreads records that the server answered 404 on /v1/threads: it
	// holds no threads, and Sync no longer asks until its next full load.
	NoThreads bool
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
	// Client.Sync), or the stamp of a group of items that one was seen
	// to leave while they were paged (see Paged), if earlier; or, when that read found nothing new, the Since it
	// asked from, kept; or, from a server that sends no syncedThrough,
	// the largest UpdatedAt (DeletedAt, for the deletions feed) seen.
	// Zero means the list is read whole, without updatedSince.
	Since time.Time
	// ETag is the tag of the answer to that next read, when this read
	// already got it and it was the whole list; "" otherwise. Sync sends
	// it as If-None-Match: an unchanged list answers 304, which costs no
	// rate budget.
	ETag string
	// Paged names the items that the read walked by page number, within
	// a group of more than a page of items sharing one stamp, with that
	// stamp, by id (by type and id, "invoice/inv_1", for the deletions
	// feed); nil when it walked none. Should one of them leave its group
	// (change, be deleted, or for a deletion record be put again) while
	// the pages were read, an item may have shifted past the read: the
	// next Sync that sees it leave reads again from the group's stamp.
	Paged map[string]time.Time
}

// SyncStats says what a Sync did.
type SyncStats struct {
	// Full is true when the Sync loaded everything afresh: the first
	// Sync of a Replica, one after the server said the cursor was older
	// than the deletions it keeps (ErrResyncRequired), and every Sync
	// against a server that tracks no changes (see Client.Sync).
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

// epoch is the updatedSince of a full load from a server that tracks
// changes: before any item. A load in UpdatedAt order, re-anchored after
// each page, cannot lose an item that changes while it walks (see
// readList), where a walk of pages in the lists' own order could.
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
	if !r.Cursor.Deletions.Since.IsZero() {
		err := s.changes(ctx, r)
		if !errors.Is(err, errReload) {
			s.stats.OutOfScope = slices.Clone(r.Cursor.OutOfScope)
			return s.stats, err
		}
	}
	err := s.load(ctx, r)
	s.stats.OutOfScope = slices.Clone(r.Cursor.OutOfScope)
	return s.stats, err
}

// init makes the nil maps of r, as in a zero Replica or one decoded from
// JSON with an empty map left out.
func (r *Replica) init() {
	for _, l := range syncLists() {
		l.init(r)
	}
	initMap(&r.Milestones)
	initMap(&r.Cursor.Milestones)
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
	// walked so far; unsynced is true once such a page came without one
	// (a server older than the rule).
	through  time.Time
	unsynced bool
	// gone is the Paged of the deletions feed's reads of this Sync and
	// the one before (see back).
	gone map[string]time.Time
}

// back notes that a list holds the item of type kind and id. When a read
// of the deletions feed walked a record of it by page number (see
// readList), in a group of records sharing one stamp, that record was
// dropped when the item was put again, which may have shifted another
// record past that read: the feed's cursor goes back to the group's
// stamp, and the next Sync reads it again from there. (The feed holds
// only what is gone now, so reading it again drops nothing that is back.)
func (s *syncer) back(r *Replica, kind DeletionType, id string) {
	k := Deletion{Type: kind, ID: id}.key()
	at, ok := s.gone[k]
	if !ok {
		return
	}
	delete(s.gone, k)
	if cur := &r.Cursor.Deletions; !cur.Since.IsZero() && at.Before(cur.Since) {
		cur.Since, cur.ETag = at, ""
	}
}

// synced notes the syncedThrough of a page of changes.
func (s *syncer) synced(t time.Time) {
	switch {
	case t.IsZero():
		s.unsynced = true
	case s.through.IsZero() || t.Before(s.through):
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
	// From a server without syncedThrough: every list read before this
	// point was read before the deletions are, and their stamps are a
	// safe lower bound of any deletion still to come, which keeps the
	// feed's cursor moving when nothing is deleted.
	seen := cur.newest()
	next, err := readList(ctx, s, deletions.path, "since", cur.Deletions, false, func(d Deletion) { s.drop(r, d) })
	switch {
	case isParamRefused(err, "since"): // older than the server keeps
		return errReload
	case ErrorCodeOf(err) == CodeNotFound: // the server no longer tracks changes
		return errReload
	case err != nil:
		return fmt.Errorf("statusclient: Sync: deletions: %w", err)
	}
	if s.unsynced && seen.After(next.Since) {
		next = ListCursor{Since: seen, Paged: next.Paged}
	}
	s.gone = maps.Clone(cur.Deletions.Paged)
	if s.gone == nil {
		s.gone = next.Paged
	} else {
		maps.Copy(s.gone, next.Paged)
	}
	cur.Deletions = next

	start := ListCursor{Since: epoch}
	err = s.lists(ctx, r, start)
	if isParamRefused(err, "updatedSince") { // the server no longer tracks changes
		return errReload
	}
	return err
}

// load is a full load: it reads everything into a new Replica and
// replaces r's content with it once all is read.
func (s *syncer) load(ctx context.Context, r *Replica) error {
	s.stats.Full = true
	deleted := s.stats.Deleted
	began := time.Now()
	fresh := loading(ListCursor{Since: epoch})
	err := s.lists(ctx, fresh, ListCursor{Since: epoch})
	if isParamRefused(err, "updatedSince") {
		// A server that tracks no changes: read every list whole, in
		// its own order, and leave the deletions cursor zero, so that
		// the next Sync is a full load again.
		fresh = loading(ListCursor{})
		err = s.lists(ctx, fresh, ListCursor{})
	} else if err == nil {
		err = s.settle(ctx, fresh, time.Since(began))
	}
	if err != nil {
		return err
	}
	s.stats.Deleted = deleted + gone(r.Milestones, fresh.Milestones)
	for _, l := range syncLists() {
		s.stats.Deleted += l.gone(r, fresh)
	}
	*r = *fresh
	return nil
}

// settle ends a load from a server that tracks changes: it drops from r
// what was deleted while the load ran, and sets r's deletions cursor.
//
// Every deletion that a page of the load could not see is stamped at or
// after that page's syncedThrough: settle reads the deletions from the
// smallest syncedThrough of the load's pages, and the feed's cursor is
// then the smallest of its own pages.
//
// From a server that sends no syncedThrough, the server's clock when the
// load began is a safe start, as every list was read after it. It is
// only known from the stamps, so settle takes the newest stamp the load
// saw, which the server set before the load ended, less the time the
// load took, measured on this machine (whose clock need not agree with
// the server's), and a second for the stamps' rounding; the feed's
// cursor is then the newest stamp seen. From a server that knows nothing
// that old (one that started during that time, or whose newest stamp is
// older than the 30 days of deletions it keeps), it cannot ask: the next
// Sync is a full load again.
func (s *syncer) settle(ctx context.Context, r *Replica, took time.Duration) error {
	newest := r.Cursor.newest()
	from := newest.Add(-took - time.Second).Truncate(time.Second)
	if !s.unsynced && !s.through.IsZero() {
		from = s.through
	}
	if from.Before(epoch) {
		from = epoch
	}
	next, err := readList(ctx, s, deletions.path, "since", ListCursor{Since: from}, false, func(d Deletion) { s.drop(r, d) })
	switch {
	case isParamRefused(err, "since"):
		next = ListCursor{}
	case ErrorCodeOf(err) == CodeNotFound:
		return nil // updatedSince, but no deletions: every Sync is a full load
	case err != nil:
		return fmt.Errorf("statusclient: Sync: deletions: %w", err)
	}
	// From a server without syncedThrough: deletions from now on are
	// stamped after every stamp seen so far.
	if s.unsynced && newest.After(next.Since) {
		next = ListCursor{Since: newest}
	}
	r.Cursor.Deletions = next
	return nil
}

// loading returns an empty Replica whose lists are all to be read from
// start.
func loading(start ListCursor) *Replica {
	r := &Replica{}
	for _, l := range syncLists() {
		*l.cursor(&r.Cursor) = start
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

// lists reads the changes of every list into r, each from its cursor;
// the milestones of a project without a cursor, from start. A list out
// of the key's scopes is passed over (see scoped).
func (s *syncer) lists(ctx context.Context, r *Replica, start ListCursor) error {
	cur := &r.Cursor
	if err := s.scoped(ctx, r, projectList); err != nil {
		return err
	}
	if !slices.Contains(cur.OutOfScope, projectList.name) { // the milestones need the same scope
		if err := s.milestones(ctx, r, start); err != nil {
			return err
		}
	}
	for _, l := range plainLists {
		if err := s.scoped(ctx, r, l); err != nil {
			return err
		}
	}
	if cur.NoThreads {
		return nil
	}
	err := s.scoped(ctx, r, threadList)
	if ErrorCodeOf(err) == CodeNotFound {
		// A server without threads; or one that no longer has them,
		// whose threads are then no longer to be seen.
		s.stats.Deleted += len(r.Threads) + len(r.Messages)
		clear(r.Threads)
		clear(r.Messages)
		cur.Threads, cur.Messages, cur.NoThreads = ListCursor{}, ListCursor{}, true
		return nil
	}
	if err != nil {
		return err
	}
	return s.scoped(ctx, r, messageList)
}

// scoped reads the list l, unless r's cursor says the key may not read
// it. When the server refuses it with 403 INSUFFICIENT_SCOPE, the list is
// recorded as out of scope, emptied (the projects with their
// milestones), and passed over: the key syncs what it may read. Any other
// error is returned, naming the list.
func (s *syncer) scoped(ctx context.Context, r *Replica, l syncList) error {
	if slices.Contains(r.Cursor.OutOfScope, l.name) {
		return nil
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
		s.stats.Deleted += len(r.Milestones)
		clear(r.Milestones)
		r.Cursor.Milestones = map[string]ListCursor{}
	}
	return nil
}

// allMilestones is the key of r.Cursor.Milestones under which Sync keeps
// the cursor of /v1/milestones, every project's milestones in one list.
const allMilestones = ""

// milestones reads the milestones of every project of r: through
// /v1/milestones, in pages, from its cursor (or from the smallest of
// the projects' cursors, or start, when there is none yet); from a server
// without that route (404), per project as perProject does.
func (s *syncer) milestones(ctx context.Context, r *Replica, start ListCursor) error {
	cur, ok := r.Cursor.Milestones[allMilestones]
	if !ok {
		cur = start
		for id, lc := range r.Cursor.Milestones {
			if _, still := r.Projects[id]; still && (lc.Since.IsZero() || lc.Since.Before(cur.Since)) {
				cur = ListCursor{Since: lc.Since}
			}
		}
	}
	err := readInto(ctx, s, r, DeletionMilestone, orgMilestones.path, &cur, r.Milestones)
	if ErrorCodeOf(err) == CodeNotFound {
		return s.perProject(ctx, r, start)
	}
	if err != nil {
		return fmt.Errorf("statusclient: Sync: milestones: %w", err)
	}
	r.Cursor.Milestones = map[string]ListCursor{allMilestones: cur}
	return nil
}

// perProject reads the milestones of every project of r, each project
// from its own cursor, or from start for a project without one. A project
// gone since the projects were read (404) is passed over: its deletion is
// recorded, for the next Sync. The cursors of projects no longer in r are
// dropped.
func (s *syncer) perProject(ctx context.Context, r *Replica, start ListCursor) error {
	cursors := make(map[string]ListCursor, len(r.Projects))
	for _, id := range slices.Sorted(maps.Keys(r.Projects)) {
		cur, ok := r.Cursor.Milestones[id]
		if !ok {
			cur = start
		}
		path, err := milestones.path(id)
		if err == nil {
			err = readInto(ctx, s, r, DeletionMilestone, path, &cur, r.Milestones)
		}
		if err != nil && ErrorCodeOf(err) != CodeNotFound {
			return fmt.Errorf("statusclient: Sync: milestones of project %q: %w", id, err)
		}
		cursors[id] = cur
	}
	r.Cursor.Milestones = cursors
	return nil
}

// newest is the largest Since of the cursors of the lists.
func (c SyncCursor) newest() time.Time {
	var t time.Time
	for _, lc := range c.cursors() {
		if lc.Since.After(t) {
			t = lc.Since
		}
	}
	return t
}

// drop applies a deletion record to r, with the contract's cascades.
// A record of a type Sync does not know is passed over.
func (s *syncer) drop(r *Replica, d Deletion) {
	n := &s.stats.Deleted
	cur := &r.Cursor
	for _, l := range syncLists() {
		if l.kind == d.Type {
			left(l.cursor(cur), d.ID)
			l.remove(n, r, d.ID)
		}
	}
	switch d.Type {
	case DeletionProject:
		delete(cur.Milestones, d.ID)
		removeIf(n, r.Milestones, func(m Milestone) bool { return m.ProjectID == d.ID })
		for _, l := range syncLists() {
			if l.ofProject != nil {
				l.ofProject(n, r, d.ID)
			}
		}
		for id, t := range r.Threads {
			if t.ProjectID != nil && *t.ProjectID == d.ID {
				s.drop(r, Deletion{Type: DeletionThread, ID: id})
			}
		}
	case DeletionMilestone:
		for id, lc := range cur.Milestones {
			if left(&lc, d.ID) {
				cur.Milestones[id] = lc
			}
		}
		remove(n, r.Milestones, d.ID)
	case DeletionThread:
		removeIf(n, r.Messages, func(m Message) bool { return m.ThreadID == d.ID })
	}
}

// left notes that the item id is deleted (or out of the key's view): when
// the last read of the list whose cursor is cur walked it by page number,
// in a group of items sharing one stamp, its leaving may have shifted an
// item of the group past that read, so the next read asks again from the
// group's stamp. It reports whether it changed cur.
func left(cur *ListCursor, id string) bool {
	at, ok := cur.Paged[id]
	if !ok {
		return false
	}
	delete(cur.Paged, id)
	if !cur.Since.IsZero() && at.Before(cur.Since) {
		cur.Since, cur.ETag = at, ""
	}
	return true
}

// remove deletes id from m, counting it in n when it was there.
func remove[V any](n *int, m map[string]V, id string) {
	if _, ok := m[id]; ok {
		delete(m, id)
		*n++
	}
}

// removeIf deletes the items of m that match, counting them in n.
func removeIf[V any](n *int, m map[string]V, match func(V) bool) {
	for id, v := range m {
		if match(v) {
			delete(m, id)
			*n++
		}
	}
}

func (v Milestone) key() string   { return v.ID }
func (v Deliverable) key() string { return v.ID }
func (v Invoice) key() string     { return v.ID }
func (v Thread) key() string      { return v.ID }
func (v Message) key() string     { return v.ID }
func (v Deletion) key() string    { return string(v.Type) + "/" + v.ID }

func (v Milestone) stamp() time.Time   { return v.UpdatedAt }
func (v Deliverable) stamp() time.Time { return v.UpdatedAt }
func (v Invoice) stamp() time.Time     { return v.UpdatedAt }
func (v Thread) stamp() time.Time      { return v.UpdatedAt }
func (v Message) stamp() time.Time     { return v.UpdatedAt }
func (v Deletion) stamp() time.Time    { return v.DeletedAt }
