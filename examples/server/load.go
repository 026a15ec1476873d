package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/sandbox"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/webhook"
)

// backend is where a dataset is loaded and served from.
type backend struct {
	store portalStore
	keys  auth.KeyStore // reads the organizations that store puts
	// begin, when not nil (on PostgreSQL), starts a transaction on the
	// store: what is written through its target (keys included) becomes
	// visible at once on commit. Without it a change is written to the
	// live store, under the API's guard (see live).
	begin func(ctx context.Context) (t target, commit func() error, rollback func(), err error)
}

// portalStore is what both of the server's stores (memstore.Store and
// bunstore) are, declared rather than discovered: the API's store, the
// request log, the webhook endpoints and their queue, what a sandbox is
// seeded through, and what a dataset is written through.
type portalStore interface {
	store.Store
	store.RequestLog
	store.UsageTotals // the developer settings' usage chart
	webhook.Store
	sandbox.Store
	writer
}

// writer writes every kind of item of a dataset.
type writer interface {
	store.Writer
	store.Deleter
	store.ThreadWriter
}

// target is where a change is written: a store, or a transaction on one,
// and its API keys.
type target struct {
	writer
	ks   auth.KeyStore
	keys *auth.Keys // on ks
}

// target returns the backend's own target, whose keys are keys.
func (b backend) target(keys *auth.Keys) target {
	return target{writer: b.store, ks: b.keys, keys: keys}
}

// ref is the identity of an item of a dataset: its organization and its
// id (an organization's is its own id; an API key's the key itself, a
// secret never logged).
type ref struct{ org, id string }

// entry is an item of one section of a dataset.
type entry struct {
	ref   ref
	index int // in its section of the data file, to name it
	item  any // the section's type: store.Project for "projects"
}

// section is one kind of item of a dataset, a section of the data file:
// how to parse its items, list the dataset's, put one into a target and
// remove one. Loading and reloading go through sections, so adding a kind
// is one entry there (see sectionOf).
type section struct {
	name    string // in the data file: "projects"
	parse   func(r *reader, raws []json.RawMessage, ds *dataset) error
	entries func(ds *dataset) []entry
	put     func(t target, ctx context.Context, item any) error
	// remove may return an error wrapping store.ErrNotFound for an item
	// already gone.
	remove func(t target, ctx context.Context, orgID, id string) error
	parent string                // see ownedBy
	owner  func(item any) string // see ownedBy
}

// ownedBy marks the items of s as owned by items of the section parent,
// owner naming an item's ("" for none). A change that removes an owner
// does not remove what it owns one by one: the owner's delete takes it,
// so that the feed gets its deletion and no other event for it.
func ownedBy[T any](parent string, owner func(T) string, s section) section {
	s.parent = parent
	s.owner = func(v any) string { return owner(v.(T)) }
	return s
}

// projectOf is a thread's project id, "" for one about the whole account.
func projectOf(th store.Thread) string {
	if th.ProjectID == nil {
		return ""
	}
	return *th.ProjectID
}

// sectionOf makes the section of items of type T: list is a dataset's,
// parse decodes one, id names each, put and remove write one.
func sectionOf[T any](name string, list func(*dataset) *[]T, parse func(*reader, json.RawMessage, string, *T) error,
	id func(T) ref, put func(target, context.Context, T) error, remove func(target, context.Context, string, string) error) section {
	return section{
		name: name,
		parse: func(r *reader, raws []json.RawMessage, ds *dataset) (err error) {
			*list(ds), err = items(r, name, raws, parse)
			return err
		},
		entries: func(ds *dataset) []entry {
			list := *list(ds)
			out := make([]entry, len(list))
			for i, v := range list {
				out[i] = entry{ref: id(v), index: i, item: v}
			}
			return out
		},
		put:    func(t target, ctx context.Context, v any) error { return put(t, ctx, v.(T)) },
		remove: remove,
	}
}

// sections are the kinds of item of a dataset, parents first: a change
// puts an organization before its keys and projects, and a project before
// what belongs to it. Removals go the other way (see change.apply).
var sections = []section{
	sectionOf("organizations", func(ds *dataset) *[]store.Organization { return &ds.orgs }, parseOrg,
		func(o store.Organization) ref { return ref{o.ID, o.ID} }, target.PutOrganization,
		func(t target, ctx context.Context, orgID, _ string) error { return t.DeleteOrganization(ctx, orgID) }),
	sectionOf("projects", func(ds *dataset) *[]store.Project { return &ds.projects }, parseProject,
		func(p store.Project) ref { return ref{p.OrgID, p.ID} }, target.PutProject, target.DeleteProject),
	// After the projects: a restricted key's projects are checked at import.
	sectionOf("apiKeys", func(ds *dataset) *[]apiKey { return &ds.keys }, parseKey,
		func(k apiKey) ref { return ref{k.OrgID, k.Key} }, target.importKey, target.revokeKey),
	ownedBy("projects", func(m store.Milestone) string { return m.ProjectID },
		sectionOf("milestones", func(ds *dataset) *[]store.Milestone { return &ds.milestones }, parseMilestone,
			func(m store.Milestone) ref { return ref{m.OrgID, m.ID} }, target.PutMilestone, target.DeleteMilestone)),
	ownedBy("projects", func(d store.Deliverable) string { return d.ProjectID },
		sectionOf("deliverables", func(ds *dataset) *[]store.Deliverable { return &ds.deliverables }, parseDeliverable,
			func(d store.Deliverable) ref { return ref{d.OrgID, d.ID} }, target.PutDeliverable, target.DeleteDeliverable)),
	sectionOf("invoices", func(ds *dataset) *[]store.Invoice { return &ds.invoices }, parseInvoice,
		func(i store.Invoice) ref { return ref{i.OrgID, i.ID} }, target.PutInvoice, target.DeleteInvoice),
	// Threads come after the items they may be about, messages after
	// their threads.
	ownedBy("projects", projectOf,
		sectionOf("threads", func(ds *dataset) *[]store.Thread { return &ds.threads }, parseThread,
			func(t store.Thread) ref { return ref{t.OrgID, t.ID} }, target.PutThread, target.DeleteThread)),
	ownedBy("threads", func(m store.Message) string { return m.ThreadID },
		sectionOf("messages", func(ds *dataset) *[]store.Message { return &ds.messages }, parseMessage,
			func(m store.Message) ref { return ref{m.OrgID, m.ID} }, target.PutMessage, target.DeleteMessage)),
}

// sectionIndex returns the index in sections of the section name.
func sectionIndex(name string) int {
	return slices.IndexFunc(sections, func(s section) bool { return s.name == name })
}

// itemName names an entry of the section as the data file has it:
// `projects[3] (id "p9")`, or `apiKeys[2]`, never the key.
func (s section) itemName(e entry) string {
	if s.name == "apiKeys" { // the id is the key, a secret
		return itemName(s.name, e.index, "")
	}
	return itemName(s.name, e.index, e.ref.id)
}

// change is what turns a store holding one dataset into one holding
// another: for each section (by index in sections), the entries to put
// (new or changed) and to remove, in file order.
type change struct {
	put, remove [][]entry
	goneOrgs    map[string]bool // the organizations removed, with all they own
	owned       int             // the items removed with their owner, not in remove
}

// diff returns the change from old to ds. An item is changed when it
// differs in anything but UpdatedAt: a data file's is ignored, the store
// sets its own. Items of an organization that goes are not removed one by
// one: the organization takes them; nor are items whose owner goes (a
// project's milestones, deliverables and threads, a thread's messages):
// removed first, a message would make its thread an update just before
// the thread's deletion.
func diff(old, ds *dataset) change {
	c := change{put: make([][]entry, len(sections)), remove: make([][]entry, len(sections)), goneOrgs: map[string]bool{}}
	gone := map[string]map[ref]bool{} // by section: removed, by themselves or with their owner
	for i, s := range sections {
		gone[s.name] = map[ref]bool{}
		was := map[ref]entry{}
		for _, e := range s.entries(old) {
			was[e.ref] = e
		}
		kept := map[ref]bool{}
		for _, e := range s.entries(ds) {
			kept[e.ref] = true
			if prev, ok := was[e.ref]; !ok || !sameItem(prev.item, e.item) {
				c.put[i] = append(c.put[i], e)
			}
		}
		for _, e := range s.entries(old) {
			switch {
			case kept[e.ref] || c.goneOrgs[e.ref.org]:
			case i == 0: // sections[0] is organizations
				c.goneOrgs[e.ref.org] = true
				c.remove[i] = append(c.remove[i], e)
			case s.owner != nil && gone[s.parent][ref{e.ref.org, s.owner(e.item)}]:
				gone[s.name][e.ref] = true
				c.owned++
			default:
				gone[s.name][e.ref] = true
				c.remove[i] = append(c.remove[i], e)
			}
		}
	}
	return c
}

// sameItem reports whether a and b, items of one section, are equal but
// for a field UpdatedAt.
func sameItem(a, b any) bool {
	return reflect.DeepEqual(withoutUpdatedAt(a), withoutUpdatedAt(b))
}

func withoutUpdatedAt(v any) any {
	c := reflect.New(reflect.TypeOf(v)).Elem()
	c.Set(reflect.ValueOf(v))
	if c.Kind() == reflect.Struct {
		if f := c.FieldByName("UpdatedAt"); f.IsValid() && f.CanSet() {
			f.SetZero()
		}
	}
	return c.Interface()
}

// count returns how many items c puts and removes, API keys included.
func (c change) count() (put, removed int) {
	for i := range sections {
		put += len(c.put[i])
		removed += len(c.remove[i])
	}
	return put, removed + c.owned
}

// apply writes c through t: first the organizations that go (taking what
// they own, their keys too, so that a key they held is free for another
// organization of the new dataset), then every put, parents first, then
// the other removals, children first. It stops at the first error, which
// names the item as the data file does.
func (c change) apply(ctx context.Context, t target) error {
	remove := func(i int) error {
		s := sections[i]
		for _, e := range c.remove[i] {
			if err := s.remove(t, ctx, e.ref.org, e.ref.id); err != nil && !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("removing %s of the previous file: %w", s.itemName(e), err)
			}
		}
		return nil
	}
	if err := remove(0); err != nil {
		return err
	}
	for i, s := range sections {
		for _, e := range c.put[i] {
			if err := s.put(t, ctx, e.item); err != nil {
				// A key's error never holds the key.
				return fmt.Errorf("%s: %w", s.itemName(e), err)
			}
		}
	}
	for i := len(sections) - 1; i > 0; i-- {
		if err := remove(i); err != nil {
			return err
		}
	}
	return nil
}

// load puts every item of ds into t, parents first. Loading the same
// dataset again changes nothing: items are replaced by id and a key
// already stored is kept.
func load(ctx context.Context, t target, ds *dataset) error {
	return diff(&dataset{}, ds).apply(ctx, t)
}

// importKey stores a plaintext key of the dataset, hashed, and revokes it
// when the dataset says it was. Both are idempotent: a key already stored
// is kept, and revoking keeps the first time.
func (t target) importKey(ctx context.Context, k apiKey) error {
	var rec auth.Key
	var err error
	if k.Sandbox {
		rec, err = t.keys.ImportSandbox(ctx, k.OrgID, k.Name, k.Key, k.ExpiresAt)
	} else {
		rec, err = t.keys.ImportRestricted(ctx, k.OrgID, k.Name, k.Key, k.ExpiresAt, k.Restriction)
	}
	if err != nil || k.RevokedAt == nil {
		return err
	}
	return t.ks.RevokeKey(ctx, k.OrgID, rec.ID, *k.RevokedAt)
}

// revokeKey revokes a key that the dataset no longer holds, so that it
// stops working. The key store keeps its record (a key is never deleted),
// so the same key put back later stays revoked: see checkKeys.
func (t target) revokeKey(ctx context.Context, orgID, key string) error {
	rec, _, err := t.ks.LookupKey(ctx, auth.HashKey(key))
	switch {
	case errors.Is(err, auth.ErrInvalidKey):
		return nil // gone already, with its organization
	case err != nil:
		return err
	case rec.OrgID != orgID:
		return nil // another organization's: not the dataset's to revoke
	}
	return t.keys.Revoke(ctx, orgID, rec.ID)
}
