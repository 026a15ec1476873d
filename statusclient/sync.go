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

// Sync makes r equal to what the server shows the Client's key, as the
// contract's sync algorithm says: it applies the deletions recorded since
// the last Sync, then the changes (upsert by id), and remembers where it
// left off in r.Cursor: the smallest meta.syncedThrough of the pages it
// walked, never the largest UpdatedAt it saw, so a write whose
// transaction committed after a later one, with an earlier UpdatedAt, is
// still fetched by the next Sync. It returns what it did, and an error
// when it could not finish, naming the list and wrapping the failed
// call's error (ErrorCodeOf and errors.As work on it): r then holds what
// was applied so far, each list's cursor where that list left off, and
// the next Sync completes it.
//
// The first Sync of a Replica (zero Cursor) loads everything. So does a
// Sync whose cursor the server no longer covers (400 on since: see
// ErrResyncRequired), and every Sync against a server that tracks no
// changes (404 on /v1/deletions, or updatedSince refused): it then reads
// every list whole and replaces r's content, and SyncStats.Full says so.
// A load replaces r only once it has read everything, so an error leaves
// r as it was. It ends with a read of the deletions made while it ran.
//
// Otherwise a Sync reads, each from its own cursor: the deletions feed
// (and drops what it names), then the projects, the milestones of every
// project, the deliverables, the invoices, the threads and the messages
// (and puts what they hold, by id). Every read asks, inclusively, from
// the smallest syncedThrough of the pages that list's last read walked:
// each list has its own cursor, which the contract's rule allows, since
// a syncedThrough speaks of every write the page could not see, and the
// smallest of one list's pages covers that list's writes. An item may
// come twice; it is put again. A read that finds nothing new keeps the
// cursor it asked from (any cursor at or before a syncedThrough is safe),
// so that the next read is the same request and can answer 304. From a
// server that sends no syncedThrough (one older than this rule), a list's
// cursor is the largest UpdatedAt it saw, as that server's contract
// said.
//
// A key restricted to some scopes syncs what it may read: a list the
// server refuses with 403 INSUFFICIENT_SCOPE is passed over, named in
// SyncCursor.OutOfScope and SyncStats.OutOfScope, and not asked again
// until the next full load; the Replica holds none of its items. The
// deletions feed holds only the kinds the key may read (the server
// filters it).
//
// Sync also applies the contract's cascades itself: a deleted project
// takes its milestones, deliverables, threads and their messages from r,
// and a deleted thread its messages (the server records each of them
// too). Invoices that named a deleted project come back through the
// invoice list, with ProjectID nil.
//
// Milestones are read through /v1/milestones, every project's in pages
// with one cursor; from a server without that route, per project, each
// with its own cursor (one can change without its project changing). A server that answers 404 on /v1/threads holds no
// threads: Sync records it (SyncCursor.NoThreads) and does not ask again
// until its next full load.
//
// Costs. A full load reads every item once: a page per 100 items of each
// list, the milestones of every project included, and one for the
// deletions. Each list is walked by cursor (Meta.Next), which never skips
// an item that kept its place; from a server without cursors, after a
// page the next asks again from the page's newest UpdatedAt, and items
// stamped that same second come twice. Against a
// server that tracks no changes, the load's first request, asked with
// updatedSince, is refused and counts too. A later Sync costs 7 requests (5
// from a server without threads, fewer for a key restricted to some
// scopes; plus one per project from a server without /v1/milestones),
// and a page more per 100 changes in a list, and items changed since the smallest syncedThrough come again. A
// list that has not changed since the Sync before answers 304 Not
// Modified, which the server does not count against the rate budget: Sync
// sends the ETag of the previous answer when that answer was the whole
// list and the cursor did not move. So a quiet Sync costs round trips and
// one request of budget: the deletions feed's, which Sync asks without an
// ETag so that its syncedThrough, and the feed's cursor, move with the
// server's clock. Requests are sent one after another.
//
// The deletions feed is read from the smallest syncedThrough of its
// pages the last time, which moves with the server's clock even when
// nothing is deleted. (From a server that sends no syncedThrough, from
// the largest DeletedAt seen, or the largest UpdatedAt seen by an earlier
// Sync if larger: in an organization in which nothing the key sees has
// changed for the 30 days the server keeps deletions, every Sync is then
// a full load until something changes.) An in-memory server that
// restarted knows no deletions from before: the next Sync is a full
// load.
//
// Pages that shift. A list with updatedSince is ordered by UpdatedAt,
// then id, and its pages are numbered: should an item on a page already
// read leave it while Sync walks on (changed, so stamped later and moved
// to the end; deleted; or out of the key's projects), every later item
// moves one place up, and the one that crosses the page boundary is
// never read. Its UpdatedAt is older than the next cursor, so no later
// Sync would read it either. The wire contract has no parameter to page
// by position, so Sync keeps the pages from shifting where it can and
// watches for the rest:
//
//   - After each page it asks again from the newest UpdatedAt of the
//     page, from page 1: an item changing behind that point is not in
//     the new query, and shifts nothing. Only within a group of more
//     than a page of items sharing one UpdatedAt (one second: a bulk
//     import) does it follow page numbers, and only there can an item
//     be skipped, when an item of the group's earlier pages leaves the
//     group. Whatever was skipped is stamped at or after the group's.
//   - It notes the items of those earlier pages, by id, with the group's
//     stamp (ListCursor.Paged). One that comes again in the same read
//     with another UpdatedAt left: the read starts again from the
//     group's stamp, once; should one leave that second read too, the
//     list's cursor is no later than the group's stamp. One that comes
//     in the next Sync with another UpdatedAt, or that the next Sync's
//     deletions feed names (read before the lists), left as well: that
//     Sync reads the list from the group's stamp (at once for a
//     deletion, again after the walk for a change). Every item that left
//     is found one way or the other: its change or deletion was either
//     seen by a later page of the same walk, or stamped at or after a
//     syncedThrough of the walk, which the next Sync reads from.
//   - The deletions feed is paged the same way, by (deletedAt, type,
//     id); a record leaves it when its item is put again (or comes back
//     to the key's projects). Sync notes the records of a feed group's
//     earlier pages likewise: one that comes again with another
//     deletedAt starts the feed read again, once; an item of one that a
//     list holds in this Sync or the next sends the feed's cursor back
//     to the group's stamp. The feed holds only what is gone now, so
//     reading it again removes nothing that is back.
//
// This cannot livelock, and costs nothing when nothing leaves: a list's
// cursor goes back only to the stamp of a group that an item was seen to
// leave, and only after its walk applied everything it read. Once that
// second is past (older than every syncedThrough), no write joins the
// group and every item that leaves it does so for good, so each Sync
// that goes back to it finds it smaller, and the cursor moves on when
// nothing leaves. Each read walks its list at most twice. A walk that
// pages no group notes nothing and goes back nowhere.
//
// Sync trusts what the contract promises: that the server stamps
// UpdatedAt and DeletedAt from one clock, and that every write a page
// could not see is stamped at or after its syncedThrough.
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
