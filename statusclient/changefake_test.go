package statusclient_test

import (
	"cmp"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusclient"
)

// changeAPI is a /v1 server written from the contract's "Changes and
// deletions" section, for the tests of Sync, with a store clock that the
// test moves. Every write stamps UpdatedAt from the clock when it changes
// what a client sees, and keeps it when it changes nothing; every list
// takes updatedSince (inclusive; the items ordered by UpdatedAt, then id);
// removals leave deletion records (GET /v1/deletions, since required, kept
// 30 days, none before the server started), dropped when an item of the
// same type and id is put again; deleting a project takes its milestones,
// deliverables and threads (with their messages), each recorded, and
// gives the invoices that named it a nil ProjectID and a new UpdatedAt; a
// thread's UpdatedAt, MessageCount and LastMessageAt follow its messages.
// Lists page and refuse parameters as fakeAPI's do (servePage), with ETags
// and 304s. Every page of changes carries meta.syncedThrough: the current
// second, or the stamp of the oldest transaction still open (begin), whose
// writes are stamped when it begins and seen when it commits, as a
// PostgreSQL writer whose transaction commits after a later one.
type changeAPI struct {
	// denied lists the routes (by path prefix) out of the key's scopes:
	// 403 INSUFFICIENT_SCOPE, and no deletion records of their kinds.
	denied []string
	// after, when set, is called after each answer, with the request's
	// URI: a test changes the data in the middle of a Sync with it.
	after func(uri string)
	// fail, when set, is asked before each request: true answers 500.
	fail func(uri string) bool

	mu           sync.Mutex
	now, started time.Time
	projects     map[string]statusclient.Project
	milestones   map[string]statusclient.Milestone
	deliverables map[string]statusclient.Deliverable
	invoices     map[string]statusclient.Invoice
	threads      map[string]statusclient.Thread
	messages     map[string]statusclient.Message
	deletions    map[deletionKey]statusclient.Deletion
	open         map[*lateTx]bool // transactions begun, not committed
	requests     []string
	mux          *http.ServeMux
}

type deletionKey struct {
	typ statusclient.DeletionType
	id  string
}

// retention is how long the fake keeps deletion records, as the
// contract's minimum.
const retention = 30 * 24 * time.Hour

// newChangeAPI returns a changeAPI started at start, its clock there.
func newChangeAPI(start time.Time, opts ...func(*changeAPI)) *changeAPI {
	f := &changeAPI{
		now: start, started: start,
		projects:     map[string]statusclient.Project{},
		milestones:   map[string]statusclient.Milestone{},
		deliverables: map[string]statusclient.Deliverable{},
		invoices:     map[string]statusclient.Invoice{},
		threads:      map[string]statusclient.Thread{},
		messages:     map[string]statusclient.Message{},
		deletions:    map[deletionKey]statusclient.Deletion{},
		open:         map[*lateTx]bool{},
	}
	for _, o := range opts {
		o(f)
	}
	f.mux = http.NewServeMux()
	f.routes()
	return f
}

func (f *changeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	uri := r.URL.RequestURI()
	if f.fail != nil && f.fail(uri) {
		writeError(w, http.StatusInternalServerError, "INTERNAL", "internal error", "")
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, uri)
	w.Header().Set("X-Request-Id", "req-"+strconv.Itoa(len(f.requests)))
	if f.deniedPath(r.URL.Path) {
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope"`)
		writeError(w, http.StatusForbidden, "INSUFFICIENT_SCOPE", "this key may not read this", "")
	} else {
		f.mux.ServeHTTP(w, r)
	}
	f.mu.Unlock()
	if f.after != nil {
		f.after(uri)
	}
}

// deniedPath reports whether path is out of the key's scopes (denied).
func (f *changeAPI) deniedPath(path string) bool {
	for _, p := range f.denied {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// tick moves the store's clock on.
func (f *changeAPI) tick(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

// requestLog returns the request URIs served so far, and forgets them.
func (f *changeAPI) requestLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.requests
	f.requests = nil
	return out
}

// lateTx is a transaction of the fake: its writes are stamped when it
// begins and seen by clients when it commits.
type lateTx struct {
	f     *changeAPI
	stamp time.Time
	puts  []any
	dels  []deletionKey
}

// begin opens a transaction stamped now.
func (f *changeAPI) begin() *lateTx {
	f.mu.Lock()
	defer f.mu.Unlock()
	tx := &lateTx{f: f, stamp: f.now}
	f.open[tx] = true
	return tx
}

// put and del write in the transaction, unseen until it commits.
func (tx *lateTx) put(items ...any) { tx.puts = append(tx.puts, items...) }

func (tx *lateTx) del(typ statusclient.DeletionType, id string) {
	tx.dels = append(tx.dels, deletionKey{typ, id})
}

// commit makes the transaction's writes seen, stamped when it began. A
// deletion of an item not there (any more) does nothing.
func (tx *lateTx) commit() {
	f := tx.f
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now
	f.now = tx.stamp
	f.putLocked(tx.puts...)
	for _, d := range tx.dels {
		if f.has(d.typ, d.id) {
			f.remove(d.typ, d.id)
		}
	}
	f.now = now
	delete(f.open, tx)
}

// has reports whether the fake holds the item of that type and id.
func (f *changeAPI) has(typ statusclient.DeletionType, id string) bool {
	var ok bool
	switch typ {
	case statusclient.DeletionProject:
		_, ok = f.projects[id]
	case statusclient.DeletionMilestone:
		_, ok = f.milestones[id]
	case statusclient.DeletionDeliverable:
		_, ok = f.deliverables[id]
	case statusclient.DeletionInvoice:
		_, ok = f.invoices[id]
	case statusclient.DeletionThread:
		_, ok = f.threads[id]
	case statusclient.DeletionMessage:
		_, ok = f.messages[id]
	}
	return ok
}

// syncedThrough is the meta.syncedThrough of a page of changes answered
// now: the current second, or the stamp of the oldest open transaction.
func (f *changeAPI) syncedThrough() time.Time {
	t := f.now
	for tx := range f.open {
		if tx.stamp.Before(t) {
			t = tx.stamp
		}
	}
	return t.UTC().Truncate(time.Second)
}

// put inserts or replaces items, as a portal's write: each is stamped
// now unless it is as it was, and drops the deletion record of its type
// and id. A milestone or deliverable needs its project, a message its
// thread.
func (f *changeAPI) put(items ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.putLocked(items...)
}

func (f *changeAPI) putLocked(items ...any) {
	for _, v := range items {
		switch v := v.(type) {
		case statusclient.Project:
			putStamped(f, f.projects, statusclient.DeletionProject, v.ID, v, func(p *statusclient.Project) *time.Time { return &p.UpdatedAt })
		case statusclient.Milestone:
			f.need(f.projects, v.ProjectID)
			putStamped(f, f.milestones, statusclient.DeletionMilestone, v.ID, v, func(m *statusclient.Milestone) *time.Time { return &m.UpdatedAt })
		case statusclient.Deliverable:
			f.need(f.projects, v.ProjectID)
			putStamped(f, f.deliverables, statusclient.DeletionDeliverable, v.ID, v, func(d *statusclient.Deliverable) *time.Time { return &d.UpdatedAt })
		case statusclient.Invoice:
			if v.ProjectID != nil {
				f.need(f.projects, *v.ProjectID)
			}
			putStamped(f, f.invoices, statusclient.DeletionInvoice, v.ID, v, func(i *statusclient.Invoice) *time.Time { return &i.UpdatedAt })
		case statusclient.Thread:
			if v.ProjectID != nil {
				f.need(f.projects, *v.ProjectID)
			}
			v.MessageCount, v.LastMessageAt = f.counts(v.ID)
			putStamped(f, f.threads, statusclient.DeletionThread, v.ID, v, func(t *statusclient.Thread) *time.Time { return &t.UpdatedAt })
		case statusclient.Message:
			f.need(f.threads, v.ThreadID)
			if v.Attachments == nil {
				v.Attachments = []statusclient.Attachment{} // always an array
			}
			if putStamped(f, f.messages, statusclient.DeletionMessage, v.ID, v, func(m *statusclient.Message) *time.Time { return &m.UpdatedAt }) {
				f.touchThread(v.ThreadID)
			}
		default:
			panic(fmt.Sprintf("changeAPI.put: %T", v))
		}
	}
}

// putStamped puts v under id in m, stamped now unless it is as it was,
// drops its deletion record, and reports whether it changed.
func putStamped[T any](f *changeAPI, m map[string]T, typ statusclient.DeletionType, id string, v T, updatedAt func(*T) *time.Time) bool {
	delete(f.deletions, deletionKey{typ, id})
	if old, ok := m[id]; ok {
		*updatedAt(&v) = *updatedAt(&old)
		if reflect.DeepEqual(old, v) {
			return false // a write that changes nothing keeps UpdatedAt
		}
	}
	*updatedAt(&v) = f.now
	m[id] = v
	return true
}

func (f *changeAPI) need(m any, id string) {
	if !reflect.ValueOf(m).MapIndex(reflect.ValueOf(id)).IsValid() {
		panic("changeAPI: no such parent " + id)
	}
}

// counts returns a thread's MessageCount and LastMessageAt.
func (f *changeAPI) counts(threadID string) (int, *time.Time) {
	n, last := 0, (*time.Time)(nil)
	for _, m := range f.messages {
		if m.ThreadID == threadID {
			n++
			if last == nil || m.CreatedAt.After(*last) {
				last = &m.CreatedAt
			}
		}
	}
	return n, last
}

// touchThread stamps a thread whose messages changed.
func (f *changeAPI) touchThread(id string) {
	t, ok := f.threads[id]
	if !ok {
		return
	}
	t.MessageCount, t.LastMessageAt = f.counts(id)
	t.UpdatedAt = f.now
	f.threads[id] = t
}

// del removes an item, with the contract's cascades, each removal
// recorded.
func (f *changeAPI) del(typ statusclient.DeletionType, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.remove(typ, id)
}

func (f *changeAPI) remove(typ statusclient.DeletionType, id string) {
	record := func() { f.deletions[deletionKey{typ, id}] = statusclient.Deletion{Type: typ, ID: id, DeletedAt: f.now} }
	switch typ {
	case statusclient.DeletionProject:
		f.need(f.projects, id)
		delete(f.projects, id)
		for mid, m := range f.milestones {
			if m.ProjectID == id {
				f.remove(statusclient.DeletionMilestone, mid)
			}
		}
		for did, d := range f.deliverables {
			if d.ProjectID == id {
				f.remove(statusclient.DeletionDeliverable, did)
			}
		}
		for tid, t := range f.threads {
			if t.ProjectID != nil && *t.ProjectID == id {
				f.remove(statusclient.DeletionThread, tid)
			}
		}
		for iid, inv := range f.invoices {
			if inv.ProjectID != nil && *inv.ProjectID == id {
				inv.ProjectID, inv.UpdatedAt = nil, f.now
				f.invoices[iid] = inv
			}
		}
	case statusclient.DeletionMilestone:
		f.need(f.milestones, id)
		delete(f.milestones, id)
	case statusclient.DeletionDeliverable:
		f.need(f.deliverables, id)
		delete(f.deliverables, id)
	case statusclient.DeletionInvoice:
		f.need(f.invoices, id)
		delete(f.invoices, id)
	case statusclient.DeletionThread:
		f.need(f.threads, id)
		delete(f.threads, id)
		for mid, m := range f.messages {
			if m.ThreadID == id {
				f.remove(statusclient.DeletionMessage, mid)
			}
		}
	case statusclient.DeletionMessage:
		f.need(f.messages, id)
		thread := f.messages[id].ThreadID
		delete(f.messages, id)
		f.touchThread(thread)
	default:
		panic("changeAPI.del: " + string(typ))
	}
	record()
}

// equal checks that r holds exactly the fake's data.
func (f *changeAPI) equal(t *testing.T, r *statusclient.Replica) {
	t.Helper()
	is := is.NewRelaxed(t)
	f.mu.Lock()
	defer f.mu.Unlock()
	is.Equal(r.Projects, f.projects)         // the projects
	is.Equal(r.Milestones, f.milestones)     // the milestones
	is.Equal(r.Deliverables, f.deliverables) // the deliverables
	is.Equal(r.Invoices, f.invoices)         // the invoices
	is.Equal(r.Threads, f.threads)           // the threads
	is.Equal(r.Messages, f.messages)         // the messages
}

func (f *changeAPI) routes() {
	mux := f.mux
	mux.HandleFunc("GET /v1/projects", func(w http.ResponseWriter, r *http.Request) {
		serveChanges(f, w, r, f.projects, func(a, b statusclient.Project) int {
			return cmp.Or(descNullsLast(a.StartedAt, b.StartedAt), cmp.Compare(a.ID, b.ID))
		}, func(p statusclient.Project) bool { return matches(r, "status", string(p.Status)) }, "status")
	})
	mux.HandleFunc("GET /v1/projects/{id}/milestones", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		if _, ok := f.projects[id]; !ok {
			writeError(w, http.StatusNotFound, "NOT_FOUND", "no such project", "")
			return
		}
		serveChanges(f, w, r, f.milestones, func(a, b statusclient.Milestone) int {
			return cmp.Or(a.DueAt.Compare(b.DueAt), cmp.Compare(a.ID, b.ID))
		}, func(m statusclient.Milestone) bool {
			return m.ProjectID == id && matches(r, "status", string(m.Status))
		}, "status")
	})
	mux.HandleFunc("GET /v1/milestones", func(w http.ResponseWriter, r *http.Request) {
		serveChanges(f, w, r, f.milestones, func(a, b statusclient.Milestone) int {
			return cmp.Or(a.DueAt.Compare(b.DueAt), cmp.Compare(a.ProjectID, b.ProjectID), cmp.Compare(a.ID, b.ID))
		}, func(m statusclient.Milestone) bool {
			return matches(r, "status", string(m.Status)) && matches(r, "projectId", m.ProjectID)
		}, "status", "projectId")
	})
	mux.HandleFunc("GET /v1/deliverables", func(w http.ResponseWriter, r *http.Request) {
		serveChanges(f, w, r, f.deliverables, func(a, b statusclient.Deliverable) int {
			return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(a.ID, b.ID))
		}, func(d statusclient.Deliverable) bool {
			return matches(r, "status", string(d.Status)) && matches(r, "projectId", d.ProjectID)
		}, "status", "projectId")
	})
	mux.HandleFunc("GET /v1/invoices", func(w http.ResponseWriter, r *http.Request) {
		serveChanges(f, w, r, f.invoices, func(a, b statusclient.Invoice) int {
			return cmp.Or(b.IssuedAt.Compare(a.IssuedAt), cmp.Compare(a.ID, b.ID))
		}, func(i statusclient.Invoice) bool {
			return matches(r, "status", string(i.Status)) && matches(r, "projectId", deref(i.ProjectID))
		}, "status", "projectId")
	})
	mux.HandleFunc("GET /v1/threads", func(w http.ResponseWriter, r *http.Request) {
		serveChanges(f, w, r, f.threads, func(a, b statusclient.Thread) int {
			return cmp.Or(descNullsLast(a.LastMessageAt, b.LastMessageAt), cmp.Compare(a.ID, b.ID))
		}, func(t statusclient.Thread) bool {
			return matches(r, "status", string(t.Status)) && matches(r, "projectId", deref(t.ProjectID))
		}, "status", "projectId")
	})
	mux.HandleFunc("GET /v1/messages", func(w http.ResponseWriter, r *http.Request) {
		serveChanges(f, w, r, f.messages, func(a, b statusclient.Message) int {
			return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
		}, func(m statusclient.Message) bool {
			return matches(r, "threadId", m.ThreadID) && matches(r, "projectId", deref(f.threads[m.ThreadID].ProjectID))
		}, "threadId", "projectId")
	})
	mux.HandleFunc("GET /v1/deletions", f.serveDeletions)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "NOT_FOUND", "no such route", "")
	})
}

// serveChanges answers a list route: the items of all that keep accepts,
// in the list's order, or, with updatedSince, those stamped at or after
// it, ordered by UpdatedAt, then id.
func serveChanges[M ~map[string]V, V any](f *changeAPI, w http.ResponseWriter, r *http.Request, all M, order func(a, b V) int, keep func(V) bool, filters ...string) {
	var items []V
	for _, v := range all {
		if keep(v) {
			items = append(items, v)
		}
	}
	slices.SortFunc(items, order)
	filters = append(filters, "updatedSince")
	var through time.Time
	var pos func(V) string
	if r.URL.Query().Has("updatedSince") {
		since, ok := parseStamp(r.URL.Query().Get("updatedSince"))
		if !ok {
			writeError(w, http.StatusBadRequest, "INVALID_PARAMETER", "updatedSince must be a UTC timestamp with whole seconds", "updatedSince")
			return
		}
		items = slices.DeleteFunc(items, func(v V) bool { return updatedAt(v).Before(since) })
		slices.SortFunc(items, func(a, b V) int {
			return cmp.Or(updatedAt(a).Compare(updatedAt(b)), cmp.Compare(itemID(a), itemID(b)))
		})
		through = f.syncedThrough()
		pos = func(v V) string { return position(updatedAt(v), itemID(v)) }
	}
	servePageSynced(w, r, items, func(V) bool { return true }, through, pos, filters...)
}

func (f *changeAPI) serveDeletions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if !q.Has("since") {
		writeError(w, http.StatusBadRequest, "INVALID_PARAMETER", "since is required", "since")
		return
	}
	since, ok := parseStamp(q.Get("since"))
	if !ok {
		writeError(w, http.StatusBadRequest, "INVALID_PARAMETER", "since must be a UTC timestamp with whole seconds", "since")
		return
	}
	known := f.started
	if t := f.now.Add(-retention); t.After(known) {
		known = t
	}
	if since.Before(known) {
		writeError(w, http.StatusBadRequest, "INVALID_PARAMETER", "since is older than the deletions kept: resync in full", "since")
		return
	}
	var records []statusclient.Deletion
	for _, d := range f.deletions {
		if !d.DeletedAt.Before(since) && matches(r, "type", string(d.Type)) && !f.deniedPath(deletionPath[d.Type]) {
			records = append(records, d)
		}
	}
	slices.SortFunc(records, func(a, b statusclient.Deletion) int {
		return cmp.Or(a.DeletedAt.Compare(b.DeletedAt), cmp.Compare(a.Type, b.Type), cmp.Compare(a.ID, b.ID))
	})
	servePageSynced(w, r, records, func(statusclient.Deletion) bool { return true }, f.syncedThrough(),
		func(d statusclient.Deletion) string { return position(d.DeletedAt, string(d.Type), d.ID) }, "since", "type")
}

// position is an item's place in a list ordered by stamp, then keys:
// strings that compare as the order does, for the fake's cursors.
func position(stamp time.Time, keys ...string) string {
	return strings.Join(append([]string{stamp.UTC().Format(time.RFC3339)}, keys...), "\x00")
}

// deletionPath is the list route of each kind of deletion record, for
// the scopes of denied (milestones are read with the projects).
var deletionPath = map[statusclient.DeletionType]string{
	statusclient.DeletionProject:     "/v1/projects",
	statusclient.DeletionMilestone:   "/v1/projects",
	statusclient.DeletionDeliverable: "/v1/deliverables",
	statusclient.DeletionInvoice:     "/v1/invoices",
	statusclient.DeletionThread:      "/v1/threads",
	statusclient.DeletionMessage:     "/v1/threads",
}

// itemID reads the ID field of any of the client's item types.
func itemID(v any) string {
	return reflect.ValueOf(v).FieldByName("ID").String()
}

// updatedAt reads the UpdatedAt field of any of the client's item types.
func updatedAt(v any) time.Time {
	return reflect.ValueOf(v).FieldByName("UpdatedAt").Interface().(time.Time)
}

func parseStamp(v string) (time.Time, bool) {
	t, err := time.Parse("2006-01-02T15:04:05Z", v)
	return t, err == nil && t.Format("2006-01-02T15:04:05Z") == v
}

// descNullsLast orders times descending, nil last.
func descNullsLast(a, b *time.Time) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return b.Compare(*a)
}
