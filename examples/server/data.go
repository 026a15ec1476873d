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
	// content maps a deliverable's or an attachment's FileKey (see
	// contentKey and attachmentKey) to its file's bytes.
	content map[string][]byte
	// ignored names the fields of the file that the format does not have.
	ignored []string
}

// apiKey is a plaintext API key of the data file; it is hashed when loaded
// and never logged.
type apiKey struct {
	OrgID     string
	Name      string
	Key       string
	ExpiresAt *time.Time
	RevokedAt *time.Time
	// What the key may read: the file's scopes and projectIds; all when
	// it gives neither.
	auth.Restriction
	// Sandbox: the file's "sandbox": true. The key reads its
	// organization's sandbox (seeded at start and after a reload), never
	// its live data, whatever its plaintext (csk_test_... is the
	// convention, not a requirement).
	Sandbox bool
}

// fileKey is where the bytes of a deliverable given with content are kept:
// "deliverables/" and the organization and deliverable ids, each escaped.
// Ids may hold any byte, "/" included, so joining them as they are would
// give two owners one key (org_a's "s/t" and org_a/s's "t"), and the one
// loaded last would serve its file to both. Escaping makes the key
// collision-free by construction: a part never holds "/", and escaping is
// one-to-one. Every key is also a valid fs path (no "." or ".." element,
// ASCII only), so the files could be served from a directory as they are.
func fileKey(orgID, deliverableID string) string {
	return "deliverables/" + keyPart(orgID) + "/" + keyPart(deliverableID)
}

// contentKey is the FileKey of a deliverable whose file holds content:
// fileKey and the first 16 hex digits of the content's SHA-256. New bytes
// get a new key, so a store that tracks changes sees the deliverable
// change and gives it a new updatedAt when a reload brings new content
// (the file's other fields may well be the same), and a download already
// under way keeps the bytes it started with.
func contentKey(orgID, deliverableID string, content []byte) string {
	sum := sha256.Sum256(content)
	return fileKey(orgID, deliverableID) + "/" + hex.EncodeToString(sum[:8])
}

// attachmentKey is the FileKey of a message's attachment: "attachments/",
// the organization and attachment ids, each escaped as by fileKey (an
// attachment id is unique in its organization), and the first 16 hex
// digits of the content's SHA-256, for the reasons contentKey gives. The
// prefix keeps attachments and deliverables apart: a deliverable and an
// attachment with one id never share a key.
func attachmentKey(orgID, attachmentID string, content []byte) string {
	sum := sha256.Sum256(content)
	return "attachments/" + keyPart(orgID) + "/" + keyPart(attachmentID) + "/" + hex.EncodeToString(sum[:8])
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
		if err = jsonError(err); errors.Is(err, errEndsTooSoon) || strings.HasPrefix(err.Error(), "not valid JSON") {
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
	// Files are attached once check has given each deliverable and
	// message its organization.
	for i, c := range r.contents {
		if c != nil {
			ds.attach(i, []byte(*c))
		}
	}
	for i, d := range r.documents {
		if d != nil {
			ds.attachDocument(i, []byte(*d))
		}
	}
	for i, files := range r.files {
		ds.attachFiles(i, files)
		if err := ds.messages[i].Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", itemName("messages", i, ds.messages[i].ID), err)
		}
	}
	return ds, nil
}

// The parse functions decode an item of their section into its store type
// and check what the item alone can tell. An item that belongs to a
// project is validated by check, once its organization is known.

func parseOrg(r *reader, raw json.RawMessage, where string) (o store.Organization, err error) {
	if err := r.object(raw, where, opt("id", &o.ID), opt("name", &o.Name), opt("plan", &o.Plan),
		req("retainerActive", &o.RetainerActive, boolean), req("apiEnabled", &o.APIEnabled, boolean)); err != nil {
		return o, err
	}
	if o.Name == "" {
		return o, errors.New("name is required")
	}
	if auth.IsSandboxOrgID(o.ID) {
		return o, fmt.Errorf("an id ending in %s is reserved for sandboxes", auth.SandboxSuffix)
	}
	return o, o.Validate()
}

func parseKey(r *reader, raw json.RawMessage, where string) (k apiKey, err error) {
	if err := r.object(raw, where, opt("orgId", &k.OrgID), opt("name", &k.Name), opt("key", &k.Key),
		opt("expiresAt", &k.ExpiresAt), opt("revokedAt", &k.RevokedAt),
		opt("scopes", &k.Scopes), opt("projectIds", &k.ProjectIDs), opt("sandbox", &k.Sandbox)); err != nil {
		return k, err
	}
	switch {
	case k.OrgID == "":
		return k, errors.New("orgId is required")
	case k.Key == "" || strings.TrimSpace(k.Key) != k.Key || strings.ContainsAny(k.Key, " \t\r\n"):
		return k, errors.New("key is required, without spaces")
	case k.Sandbox && k.Restricted():
		return k, errors.New("a sandbox key reads all of its sandbox: leave out scopes and projectIds")
	case !k.Sandbox && strings.HasPrefix(k.Key, auth.SandboxKeyPrefix):
		return k, fmt.Errorf("a key that starts with %s is a sandbox key: add \"sandbox\": true", auth.SandboxKeyPrefix)
	}
	return k, k.Restriction.Validate()
}

func parseProject(r *reader, raw json.RawMessage, where string) (p store.Project, err error) {
	if err := r.object(raw, where, opt("id", &p.ID), opt("orgId", &p.OrgID), opt("name", &p.Name), opt("status", &p.Status),
		opt("startedAt", &p.StartedAt), opt("dueAt", &p.DueAt), opt("updatedAt", &p.UpdatedAt)); err != nil {
		return p, err
	}
	if err := requireName(p.Name); err != nil {
		return p, err
	}
	return p, p.Validate()
}

func parseMilestone(r *reader, raw json.RawMessage, where string) (m store.Milestone, err error) {
	if err := r.object(raw, where, opt("id", &m.ID), opt("orgId", &m.OrgID), opt("projectId", &m.ProjectID),
		opt("name", &m.Name), opt("status", &m.Status), at("dueAt", &m.DueAt), opt("completedAt", &m.CompletedAt),
		opt("updatedAt", &m.UpdatedAt)); err != nil {
		return m, err
	}
	return m, requireName(m.Name)
}

func parseDeliverable(r *reader, raw json.RawMessage, where string) (d store.Deliverable, err error) {
	var content *string
	if err := r.object(raw, where, opt("id", &d.ID), opt("orgId", &d.OrgID), opt("projectId", &d.ProjectID),
		opt("name", &d.Name), opt("status", &d.Status), opt("fileName", &d.FileName), opt("contentType", &d.ContentType),
		opt("sizeBytes", &d.SizeBytes), at("createdAt", &d.CreatedAt), opt("updatedAt", &d.UpdatedAt),
		opt("content", &content)); err != nil {
		return d, err
	}
	if err := requireName(d.Name); err != nil {
		return d, err
	}
	if content != nil && d.SizeBytes != nil && *d.SizeBytes != int64(len(*content)) {
		return d, fmt.Errorf("sizeBytes %d is not the length of content (%d bytes)", *d.SizeBytes, len(*content))
	}
	r.contents = append(r.contents, content)
	return d, nil
}

func parseInvoice(r *reader, raw json.RawMessage, where string) (i store.Invoice, err error) {
	const cents = "integer minor units"
	var document *string
	if err := r.object(raw, where, opt("id", &i.ID), opt("orgId", &i.OrgID), opt("number", &i.Number),
		opt("projectId", &i.ProjectID), opt("status", &i.Status), opt("currency", &i.Currency),
		req("total", &i.Total, cents), req("amountDue", &i.AmountDue, cents), at("issuedAt", &i.IssuedAt),
		at("dueAt", &i.DueAt), opt("paidAt", &i.PaidAt), opt("updatedAt", &i.UpdatedAt), opt("document", &document)); err != nil {
		return i, err
	}
	if document != nil && *document == "" {
		return i, errors.New("document is empty: leave it out for an invoice without one")
	}
	if i.Number == "" {
		return i, errors.New("number is required")
	}
	r.documents = append(r.documents, document)
	return i, i.Validate()
}

func requireName(name string) error {
	if strings.TrimSpace(name) == "" {
		return errors.New("name is required")
	}
	return nil
}

// check verifies what no single item can: ids are unique within their
// kind and organization (two organizations may each have a "p1"), and
// every id an item refers to exists in the same organization. It gives
// milestones and deliverables their project's organization.
func (ds *dataset) check() error {
	orgs := map[string]bool{}
	for i, o := range ds.orgs {
		if orgs[o.ID] {
			return fmt.Errorf("%s: duplicate id", itemName("organizations", i, o.ID))
		}
		orgs[o.ID] = true
	}
	known := func(orgID string) error {
		if !orgs[orgID] {
			return fmt.Errorf("unknown organization %q", orgID)
		}
		return nil
	}
	seenKeys := map[string]bool{}
	for i, k := range ds.keys {
		// The key itself is a secret: the message names the item by index.
		if err := known(k.OrgID); err != nil {
			return fmt.Errorf("%s: %w", itemName("apiKeys", i, ""), err)
		}
		if seenKeys[k.Key] {
			return fmt.Errorf("%s: the same key is listed twice", itemName("apiKeys", i, ""))
		}
		seenKeys[k.Key] = true
	}
	type owned struct{ orgID, id string }
	projects := map[owned]bool{}
	projectOrgs := map[string][]string{} // project id -> organizations that have one
	for i, p := range ds.projects {
		name := itemName("projects", i, p.ID)
		if err := known(p.OrgID); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if projects[owned{p.OrgID, p.ID}] {
			return fmt.Errorf("%s: duplicate id in organization %q", name, p.OrgID)
		}
		projects[owned{p.OrgID, p.ID}] = true
		projectOrgs[p.ID] = append(projectOrgs[p.ID], p.OrgID)
	}
	// owner checks that an item's project exists in the item's
	// organization; an item without orgId takes its project's.
	owner := func(orgID *string, projectID string) error {
		switch in := projectOrgs[projectID]; {
		case len(in) == 0:
			return fmt.Errorf("unknown project %q", projectID)
		case *orgID == "" && len(in) > 1:
			return fmt.Errorf("project id %q is used by organizations %q: give orgId", projectID, in)
		case *orgID == "":
			*orgID = in[0]
		case !projects[owned{*orgID, projectID}]:
			return fmt.Errorf("project %q belongs to organization %q, not %q", projectID, in[0], *orgID)
		}
		return nil
	}
	// unique checks that an item's id is new in its kind and organization.
	seen := map[owned]bool{}
	unique := func(orgID, id string) error {
		if seen[owned{orgID, id}] {
			return fmt.Errorf("duplicate id in organization %q", orgID)
		}
		seen[owned{orgID, id}] = true
		return nil
	}
	// projectItem checks an item that belongs to a project.
	projectItem := func(orgID *string, projectID, id string, validate func() error) error {
		if *orgID != "" {
			if err := known(*orgID); err != nil {
				return err
			}
		}
		if err := owner(orgID, projectID); err != nil {
			return err
		}
		if err := unique(*orgID, id); err != nil {
			return err
		}
		return validate()
	}
	for i, k := range ds.keys {
		for _, id := range k.ProjectIDs {
			if !projects[owned{k.OrgID, id}] {
				return fmt.Errorf("%s: projectIds: organization %q has no project %q", itemName("apiKeys", i, ""), k.OrgID, id)
			}
		}
	}
	for i := range ds.milestones {
		m := &ds.milestones[i]
		if err := projectItem(&m.OrgID, m.ProjectID, m.ID, func() error { return m.Validate() }); err != nil {
			return fmt.Errorf("%s: %w", itemName("milestones", i, m.ID), err)
		}
	}
	clear(seen)
	for i := range ds.deliverables {
		d := &ds.deliverables[i]
		if err := projectItem(&d.OrgID, d.ProjectID, d.ID, func() error { return d.Validate() }); err != nil {
			return fmt.Errorf("%s: %w", itemName("deliverables", i, d.ID), err)
		}
	}
	clear(seen)
	for i, inv := range ds.invoices {
		err := known(inv.OrgID)
		if err == nil {
			err = unique(inv.OrgID, inv.ID)
		}
		if err == nil && inv.ProjectID != nil {
			orgID := inv.OrgID
			err = owner(&orgID, *inv.ProjectID)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", itemName("invoices", i, inv.ID), err)
		}
	}
	return ds.checkThreads(known, owner)
}

// attach gives the i-th deliverable a file with content. The file's name,
// type and size default to the deliverable's id, the sniffed type and the
// length of content.
func (ds *dataset) attach(i int, content []byte) {
	d := &ds.deliverables[i]
	d.FileKey = contentKey(d.OrgID, d.ID, content)
	if d.FileName == nil {
		d.FileName = ptr(d.ID)
	}
	if d.ContentType == nil {
		d.ContentType = ptr(http.DetectContentType(content))
	}
	if d.SizeBytes == nil {
		d.SizeBytes = ptr(int64(len(content)))
	}
	ds.content[d.FileKey] = content
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
