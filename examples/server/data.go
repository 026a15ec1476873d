package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// dataset is everything the server serves: what a data file holds once
// parsed, or the built-in demo data. Items are in file order, so an index
// names an item of the file.
type dataset struct {
	orgs         []store.Organization
	keys         []apiKey
	projects     []store.Project
	milestones   []store.Milestone
	deliverables []store.Deliverable
	invoices     []store.Invoice
	threads      []store.Thread
	messages     []store.Message
	webhooks     []webhookEndpoint // webhooks.go
	content      map[string][]byte // the items' files' bytes, by key (see contentKey)
	ignored      []string          // the fields of the file that the format does not have
}

// apiKey is a plaintext API key of the data file; it is hashed when loaded
// and never logged.
type apiKey struct {
	OrgID            string
	Name             string
	Key              string
	ExpiresAt        *time.Time
	RevokedAt        *time.Time
	auth.Restriction // the file's scopes and projectIds; all when it gives neither
	// Sandbox: the file's "sandbox": true. The key reads its
	// organization's sandbox, never its live data, whatever its plaintext
	// (csk_test_... is the convention, not a requirement).
	Sandbox bool
}

// fileKey is where the bytes of an item's file are kept: its kind
// ("deliverables", "attachments" or "invoices", so that items of two kinds
// never share a key) and the organization and item ids, each escaped.
// Ids may hold any byte, "/" included, so joining them as they are would
// give two owners one key (org_a's "s/t" and org_a/s's "t"), and the one
// loaded last would serve its file to both. Escaping makes the key
// collision-free by construction: a part never holds "/", and escaping is
// one-to-one. Every key is also a valid fs path (no "." or ".." element,
// ASCII only), so the files could be served from a directory as they are.
func fileKey(kind, orgID, id string) string {
	return kind + "/" + keyPart(orgID) + "/" + keyPart(id)
}

// contentKey is the FileKey (or DocumentKey) of an item whose file holds
// content: fileKey and the first 16 hex digits of the content's SHA-256.
// New bytes get a new key, so a store that tracks changes sees the item
// change and gives it a new updatedAt when a reload brings new content
// (the file's other fields may well be the same), and a download already
// under way keeps the bytes it started with.
func contentKey(kind, orgID, id string, content []byte) string {
	sum := sha256.Sum256(content)
	return fileKey(kind, orgID, id) + "/" + hex.EncodeToString(sum[:8])
}

// keep keeps content as the file of an item of kind and returns its key.
func (ds *dataset) keep(kind, orgID, id string, content []byte) string {
	key := contentKey(kind, orgID, id, content)
	ds.content[key] = content
	return key
}

// keyPart escapes s for fileKey: every byte but an ASCII letter, digit, "-"
// or "_" becomes "%" and two upper-case hex digits. Unlike url.PathEscape,
// it escapes "." too, so no part is "." or "..".
func keyPart(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// parseData reads a data file (the format docs/data-file.md describes) and checks it
// whole: every item's fields, unique ids, and that every id it refers to
// exists and belongs to the same organization. The error names the first
// bad item, as in `projects[3] (id "p9"): unknown organization "org_x"`.
func parseData(in io.Reader) (*dataset, error) {
	raw, err := io.ReadAll(in)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var whole json.RawMessage
	if err := dec.Decode(&whole); err != nil {
		if err = jsonError(err); strings.HasPrefix(err.Error(), "not valid JSON") {
			return nil, fmt.Errorf("%s: %w", whereBroken(raw), err)
		}
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	r := &reader{}
	raws := make([][]json.RawMessage, len(sections)+1) // the sections', then webhookEndpoints
	fs := []field{opt("webhookEndpoints", &raws[len(sections)])}
	for i, s := range sections {
		fs = append(fs, opt(s.name, &raws[i]))
	}
	if err := r.object(whole, "", fs...); err != nil {
		return nil, err
	}
	ds := &dataset{content: map[string][]byte{}}
	for i, s := range sections {
		if err := s.parse(r, raws[i], ds); err != nil {
			return nil, err
		}
	}
	if ds.webhooks, err = items(r, "webhookEndpoints", raws[len(sections)], parseWebhook); err != nil {
		return nil, err
	}
	if err := ds.check(); err != nil {
		return nil, err
	}
	ds.ignored = r.ignored
	// Files are attached once check has given each item its organization.
	for _, f := range r.after {
		if err := f(ds); err != nil {
			return nil, err
		}
	}
	return ds, nil
}

// The parse functions decode an item of their section and check what the
// item alone can tell; an item that belongs to a project is validated by
// check, once its organization is known.

func parseOrg(r *reader, raw json.RawMessage, where string, o *store.Organization) error {
	if err := r.object(raw, where, opt("id", &o.ID), opt("name", &o.Name), opt("plan", &o.Plan),
		req("retainerActive", &o.RetainerActive, boolean), req("apiEnabled", &o.APIEnabled, boolean)); err != nil {
		return err
	}
	if o.Name == "" {
		return errors.New("name is required")
	}
	if auth.IsSandboxOrgID(o.ID) {
		return fmt.Errorf("an id ending in %s is reserved for sandboxes", auth.SandboxSuffix)
	}
	return o.Validate()
}

func parseKey(r *reader, raw json.RawMessage, where string, k *apiKey) error {
	if err := r.object(raw, where, opt("orgId", &k.OrgID), opt("name", &k.Name), opt("key", &k.Key),
		opt("expiresAt", &k.ExpiresAt), opt("revokedAt", &k.RevokedAt),
		opt("scopes", &k.Scopes), opt("projectIds", &k.ProjectIDs), opt("sandbox", &k.Sandbox)); err != nil {
		return err
	}
	switch {
	case k.OrgID == "":
		return errors.New("orgId is required")
	case k.Key == "" || strings.TrimSpace(k.Key) != k.Key || strings.ContainsAny(k.Key, " \t\r\n"):
		return errors.New("key is required, without spaces")
	case k.Sandbox && k.Restricted():
		return errors.New("a sandbox key reads all of its sandbox: leave out scopes and projectIds")
	case !k.Sandbox && strings.HasPrefix(k.Key, auth.SandboxKeyPrefix):
		return fmt.Errorf("a key that starts with %s is a sandbox key: add \"sandbox\": true", auth.SandboxKeyPrefix)
	}
	return k.Restriction.Validate()
}

func parseProject(r *reader, raw json.RawMessage, where string, p *store.Project) error {
	if err := r.object(raw, where, opt("id", &p.ID), opt("orgId", &p.OrgID), opt("name", &p.Name), opt("status", &p.Status),
		opt("startedAt", &p.StartedAt), opt("dueAt", &p.DueAt), opt("updatedAt", &p.UpdatedAt)); err != nil {
		return err
	}
	if err := required("name", p.Name); err != nil {
		return err
	}
	return p.Validate()
}

func parseMilestone(r *reader, raw json.RawMessage, where string, m *store.Milestone) error {
	if err := r.object(raw, where, opt("id", &m.ID), opt("orgId", &m.OrgID), opt("projectId", &m.ProjectID),
		opt("name", &m.Name), opt("status", &m.Status), at("dueAt", &m.DueAt), opt("completedAt", &m.CompletedAt),
		opt("updatedAt", &m.UpdatedAt)); err != nil {
		return err
	}
	return required("name", m.Name)
}

func parseDeliverable(r *reader, raw json.RawMessage, where string, d *store.Deliverable) error {
	var content *string
	if err := r.object(raw, where, opt("id", &d.ID), opt("orgId", &d.OrgID), opt("projectId", &d.ProjectID),
		opt("name", &d.Name), opt("status", &d.Status), opt("fileName", &d.FileName), opt("contentType", &d.ContentType),
		opt("sizeBytes", &d.SizeBytes), at("createdAt", &d.CreatedAt), opt("updatedAt", &d.UpdatedAt),
		opt("content", &content)); err != nil {
		return err
	}
	if err := required("name", d.Name); err != nil {
		return err
	}
	if content != nil && d.SizeBytes != nil && *d.SizeBytes != int64(len(*content)) {
		return fmt.Errorf("sizeBytes %d is not the length of content (%d bytes)", *d.SizeBytes, len(*content))
	}
	if content != nil {
		r.later(func(ds *dataset) error { ds.attach(d, []byte(*content)); return nil })
	}
	return nil
}

func parseInvoice(r *reader, raw json.RawMessage, where string, i *store.Invoice) error {
	const cents = "integer minor units"
	var document *string
	if err := r.object(raw, where, opt("id", &i.ID), opt("orgId", &i.OrgID), opt("number", &i.Number),
		opt("projectId", &i.ProjectID), opt("status", &i.Status), opt("currency", &i.Currency),
		req("total", &i.Total, cents), req("amountDue", &i.AmountDue, cents), at("issuedAt", &i.IssuedAt),
		at("dueAt", &i.DueAt), opt("paidAt", &i.PaidAt), opt("updatedAt", &i.UpdatedAt), opt("document", &document)); err != nil {
		return err
	}
	if document != nil && *document == "" {
		return errors.New("document is empty: leave it out for an invoice without one")
	}
	if i.Number == "" {
		return errors.New("number is required")
	}
	if document != nil {
		r.later(func(ds *dataset) error {
			i.DocumentKey = ds.keep("invoices", i.OrgID, i.ID, []byte(*document))
			return nil
		})
	}
	return i.Validate()
}

// required refuses a value that is empty or only spaces.
func required(name, v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("%s is required", name)
	}
	return nil
}

// index holds the ids of a kind of item by organization, for the items
// that refer to them.
type index struct {
	kind string
	orgs map[string][]string // id -> the organizations that have one
}

// has reports whether the organization orgID has the item id.
func (x *index) has(orgID, id string) bool { return slices.Contains(x.orgs[id], orgID) }

// add adds an item, refusing an id that its organization already has.
func (x *index) add(orgID, id string) error {
	if x.has(orgID, id) {
		return fmt.Errorf("duplicate id in organization %q", orgID)
	}
	x.orgs[id] = append(x.orgs[id], orgID)
	return nil
}

// owner checks that the item id is in the organization *orgID; an item
// without orgId ("") takes the one organization that has such an item.
func (x *index) owner(orgID *string, id string) error {
	switch in := x.orgs[id]; {
	case len(in) == 0:
		return fmt.Errorf("unknown %s %q", x.kind, id)
	case *orgID == "" && len(in) > 1:
		return fmt.Errorf("%s id %q is used by organizations %q: give orgId", x.kind, id, in)
	case *orgID == "":
		*orgID = in[0]
	case !x.has(*orgID, id):
		return fmt.Errorf("%s %q belongs to organization %q, not %q", x.kind, id, in[0], *orgID)
	}
	return nil
}

// check verifies what no single item can: ids are unique within their
// kind and organization (two organizations may each have a "p1"), and
// every id an item refers to exists in the same organization. It gives
// the items without orgId their owner's organization (a project's, a
// message its thread's).
func (ds *dataset) check() error {
	orgs := map[string]bool{}
	for i, o := range ds.orgs {
		if orgs[o.ID] {
			return fmt.Errorf("%s: duplicate id", itemName("organizations", i, o.ID))
		}
		orgs[o.ID] = true
	}
	seenKeys := map[string]bool{}
	for i, k := range ds.keys {
		// The key itself is a secret: the message names the item by index.
		if !orgs[k.OrgID] {
			return fmt.Errorf("%s: unknown organization %q", itemName("apiKeys", i, ""), k.OrgID)
		}
		if seenKeys[k.Key] {
			return fmt.Errorf("%s: the same key is listed twice", itemName("apiKeys", i, ""))
		}
		seenKeys[k.Key] = true
	}
	ids := map[store.Kind]*index{}
	for _, kind := range store.Kinds {
		ids[kind] = &index{kind: string(kind), orgs: map[string][]string{}}
	}
	// place checks an item of kind in the organization *orgID: the
	// organization exists, the item's owner ownerID (nil or "" for none)
	// is an item of the kind owner there, and its id is new there. An
	// item without orgId ("") takes its owner's (see index.owner);
	// parsing refused those that may not.
	place := func(kind store.Kind, orgID *string, id string, owner store.Kind, ownerID *string) error {
		if *orgID != "" && !orgs[*orgID] {
			return fmt.Errorf("unknown organization %q", *orgID)
		}
		if ownerID != nil && *ownerID != "" {
			if err := ids[owner].owner(orgID, *ownerID); err != nil {
				return err
			}
		}
		return ids[kind].add(*orgID, id)
	}
	for i, p := range ds.projects {
		if err := place(store.KindProject, &p.OrgID, p.ID, "", nil); err != nil {
			return fmt.Errorf("%s: %w", itemName("projects", i, p.ID), err)
		}
	}
	for i, k := range ds.keys {
		for _, id := range k.ProjectIDs {
			if !ids[store.KindProject].has(k.OrgID, id) {
				return fmt.Errorf("%s: projectIds: organization %q has no project %q", itemName("apiKeys", i, ""), k.OrgID, id)
			}
		}
	}
	for i := range ds.milestones {
		m := &ds.milestones[i]
		err := place(store.KindMilestone, &m.OrgID, m.ID, store.KindProject, &m.ProjectID)
		if err == nil {
			err = m.Validate()
		}
		if err != nil {
			return fmt.Errorf("%s: %w", itemName("milestones", i, m.ID), err)
		}
	}
	for i := range ds.deliverables {
		d := &ds.deliverables[i]
		err := place(store.KindDeliverable, &d.OrgID, d.ID, store.KindProject, &d.ProjectID)
		if err == nil {
			err = d.Validate()
		}
		if err != nil {
			return fmt.Errorf("%s: %w", itemName("deliverables", i, d.ID), err)
		}
	}
	for i := range ds.invoices {
		inv := &ds.invoices[i]
		if err := place(store.KindInvoice, &inv.OrgID, inv.ID, store.KindProject, inv.ProjectID); err != nil {
			return fmt.Errorf("%s: %w", itemName("invoices", i, inv.ID), err)
		}
	}
	for i := range ds.threads {
		t := &ds.threads[i]
		err := place(store.KindThread, &t.OrgID, t.ID, store.KindProject, t.ProjectID)
		if err == nil && t.OrgID == "" {
			err = errors.New("orgId is required for a thread without a project")
		}
		if err == nil {
			err = t.Validate()
		}
		if a := t.About; err == nil && a != nil && !ids[a.Kind].has(t.OrgID, a.ID) {
			err = fmt.Errorf("about: unknown %s %q in organization %q", a.Kind, a.ID, t.OrgID)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", itemName("threads", i, t.ID), err)
		}
	}
	attachments := map[ref]string{} // attachment -> its message's id
	for i := range ds.messages {
		m := &ds.messages[i]
		err := place(store.KindMessage, &m.OrgID, m.ID, store.KindThread, &m.ThreadID)
		for j, a := range m.Attachments {
			if other, ok := attachments[ref{m.OrgID, a.ID}]; ok && err == nil {
				err = fmt.Errorf("attachments[%d]: id %q is message %q's already (attachment ids are unique in an organization)", j, a.ID, other)
			}
			attachments[ref{m.OrgID, a.ID}] = m.ID
		}
		if err != nil {
			return fmt.Errorf("%s: %w", itemName("messages", i, m.ID), err)
		}
	}
	return nil
}

// attach gives a deliverable a file with content. The file's name, type
// and size default to the deliverable's id, the sniffed type and the
// length of content.
func (ds *dataset) attach(d *store.Deliverable, content []byte) {
	d.FileKey = ds.keep("deliverables", d.OrgID, d.ID, content)
	if d.FileName == nil {
		d.FileName = ptr(d.ID)
	}
	if d.ContentType == nil {
		d.ContentType = ptr(http.DetectContentType(content))
	}
	if d.SizeBytes == nil {
		d.SizeBytes = ptr(int64(len(content)))
	}
}

// fileless lists the deliverables that describe a file (a fileName) but
// hold no content: their downloads answer 409 FILE_NOT_AVAILABLE.
func (ds *dataset) fileless() []string {
	var ids []string
	for _, d := range ds.deliverables {
		if d.FileName != nil && !d.HasFile() {
			ids = append(ids, d.ID)
		}
	}
	return ids
}

func ptr[T any](v T) *T { return &v }
