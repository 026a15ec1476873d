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

// The items of a data file, as JSON. Every field a file may hold is here:
// an unknown field is refused, so that a misspelt one ("dueat") cannot
// silently become null. Pointers tell a missing required field from a zero.
type (
	fileJSON struct {
		Organizations []json.RawMessage `json:"organizations"`
		APIKeys       []json.RawMessage `json:"apiKeys"`
		Projects      []json.RawMessage `json:"projects"`
		Milestones    []json.RawMessage `json:"milestones"`
		Deliverables  []json.RawMessage `json:"deliverables"`
		Invoices      []json.RawMessage `json:"invoices"`
		Threads       []json.RawMessage `json:"threads"`
		Messages      []json.RawMessage `json:"messages"`
		Webhooks      []json.RawMessage `json:"webhookEndpoints"`
	}
	orgJSON struct {
		ID             string `json:"id"`
		Name           string `json:"name"`
		Plan           string `json:"plan"`
		RetainerActive *bool  `json:"retainerActive"`
		APIEnabled     *bool  `json:"apiEnabled"`
	}
	keyJSON struct {
		OrgID     string  `json:"orgId"`
		Name      string  `json:"name"`
		Key       string  `json:"key"`
		ExpiresAt *string `json:"expiresAt"`
		RevokedAt *string `json:"revokedAt"`
		// Optional: absent or null for no restriction; [] is refused.
		Scopes     []string `json:"scopes"`
		ProjectIDs []string `json:"projectIds"`
		// Optional: true for a sandbox key.
		Sandbox bool `json:"sandbox"`
	}
	projectJSON struct {
		ID        string  `json:"id"`
		OrgID     string  `json:"orgId"`
		Name      string  `json:"name"`
		Status    string  `json:"status"`
		StartedAt *string `json:"startedAt"`
		DueAt     *string `json:"dueAt"`
		UpdatedAt *string `json:"updatedAt"` // optional: see updatedAt
	}
	milestoneJSON struct {
		ID          string  `json:"id"`
		OrgID       string  `json:"orgId"` // optional: the project's
		ProjectID   string  `json:"projectId"`
		Name        string  `json:"name"`
		Status      string  `json:"status"`
		DueAt       *string `json:"dueAt"`
		CompletedAt *string `json:"completedAt"`
		UpdatedAt   *string `json:"updatedAt"` // optional: see updatedAt
	}
	deliverableJSON struct {
		ID          string  `json:"id"`
		OrgID       string  `json:"orgId"` // optional: the project's
		ProjectID   string  `json:"projectId"`
		Name        string  `json:"name"`
		Status      string  `json:"status"`
		FileName    *string `json:"fileName"`
		ContentType *string `json:"contentType"`
		SizeBytes   *int64  `json:"sizeBytes"`
		CreatedAt   *string `json:"createdAt"`
		UpdatedAt   *string `json:"updatedAt"` // optional: see updatedAt
		Content     *string `json:"content"`
	}
	invoiceJSON struct {
		ID        string  `json:"id"`
		OrgID     string  `json:"orgId"`
		Number    string  `json:"number"`
		ProjectID *string `json:"projectId"`
		Status    string  `json:"status"`
		Currency  string  `json:"currency"`
		Total     *int64  `json:"total"`
		AmountDue *int64  `json:"amountDue"`
		IssuedAt  *string `json:"issuedAt"`
		DueAt     *string `json:"dueAt"`
		PaidAt    *string `json:"paidAt"`
		UpdatedAt *string `json:"updatedAt"` // optional: see updatedAt
		Document  *string `json:"document"`  // optional: the document's bytes (documents.go)
	}
	threadJSON struct {
		ID         string          `json:"id"`
		OrgID      string          `json:"orgId"` // optional when projectId is given: the project's
		ProjectID  *string         `json:"projectId"`
		Subject    string          `json:"subject"`
		Status     string          `json:"status"`
		About      json.RawMessage `json:"about"` // aboutJSON or null
		Internal   *bool           `json:"internal"`
		CreatedAt  *string         `json:"createdAt"`
		ResolvedAt *string         `json:"resolvedAt"`
		UpdatedAt  *string         `json:"updatedAt"` // ignored: the store sets it
	}
	aboutJSON struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	messageJSON struct {
		ID          string            `json:"id"`
		OrgID       string            `json:"orgId"` // optional: the thread's
		ThreadID    string            `json:"threadId"`
		Author      json.RawMessage   `json:"author"` // authorJSON
		Body        *string           `json:"body"`
		Internal    *bool             `json:"internal"`
		CreatedAt   *string           `json:"createdAt"`
		EditedAt    *string           `json:"editedAt"`
		UpdatedAt   *string           `json:"updatedAt"`   // ignored: the store sets it
		Attachments []json.RawMessage `json:"attachments"` // attachmentJSON
	}
	authorJSON struct {
		Name string `json:"name"`
		Side string `json:"side"`
	}
	attachmentJSON struct {
		ID          string  `json:"id"`
		FileName    string  `json:"fileName"`
		ContentType *string `json:"contentType"` // optional: sniffed from content
		Content     *string `json:"content"`
	}
)

// parseData reads a data file (the format docs/data-file.md describes) and checks it
// whole: every item's fields, unique ids, and that every id it refers to
// exists and belongs to the same organization. The error names the first
// bad item, as in `projects[3] (id "p9"): unknown organization "org_x"`.
func parseData(r io.Reader) (*dataset, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var f fileJSON
	if err := decodeStrict(bytes.NewReader(raw), &f); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) || errors.Is(err, errEndsTooSoon) {
			return nil, fmt.Errorf("%s: %w", whereBroken(raw), err)
		}
		return nil, err
	}
	ds := &dataset{content: map[string][]byte{}}
	ds.ignored = unknownFields("", []json.RawMessage{raw}, &fileJSON{})
	for _, sec := range []struct {
		name string
		raws []json.RawMessage
		v    any
	}{
		{"organizations", f.Organizations, &orgJSON{}},
		{"apiKeys", f.APIKeys, &keyJSON{}},
		{"projects", f.Projects, &projectJSON{}},
		{"milestones", f.Milestones, &milestoneJSON{}},
		{"deliverables", f.Deliverables, &deliverableJSON{}},
		{"invoices", f.Invoices, &invoiceJSON{}},
		{"threads", f.Threads, &threadJSON{}},
		{"messages", f.Messages, &messageJSON{}},
		{"webhookEndpoints", f.Webhooks, &webhookJSON{}},
	} {
		ds.ignored = append(ds.ignored, unknownFields(sec.name, sec.raws, sec.v)...)
	}
	ds.ignored = append(ds.ignored, nestedUnknownFields(f.Threads, f.Messages)...)
	if ds.orgs, err = items("organizations", f.Organizations, parseOrg); err != nil {
		return nil, err
	}
	if ds.keys, err = items("apiKeys", f.APIKeys, parseKey); err != nil {
		return nil, err
	}
	if ds.projects, err = items("projects", f.Projects, parseProject); err != nil {
		return nil, err
	}
	if ds.milestones, err = items("milestones", f.Milestones, parseMilestone); err != nil {
		return nil, err
	}
	withContent, err := items("deliverables", f.Deliverables, parseDeliverable)
	if err != nil {
		return nil, err
	}
	for _, dc := range withContent {
		ds.deliverables = append(ds.deliverables, dc.Deliverable)
	}
	withDocs, err := items("invoices", f.Invoices, parseInvoice)
	if err != nil {
		return nil, err
	}
	for _, ii := range withDocs {
		ds.invoices = append(ds.invoices, ii.Invoice)
	}
	if ds.threads, err = items("threads", f.Threads, parseThread); err != nil {
		return nil, err
	}
	if ds.webhooks, err = items("webhookEndpoints", f.Webhooks, parseWebhook); err != nil {
		return nil, err
	}
	msgs, err := items("messages", f.Messages, parseMessage)
	if err != nil {
		return nil, err
	}
	for _, mi := range msgs {
		ds.messages = append(ds.messages, mi.Message)
	}
	if err := ds.check(); err != nil {
		return nil, err
	}
	// Content is attached once check has given each deliverable and
	// message its organization.
	for i, dc := range withContent {
		if dc.content != nil {
			ds.attach(i, []byte(*dc.content))
		}
	}
	for i, ii := range withDocs {
		if ii.document != nil {
			ds.attachDocument(i, []byte(*ii.document))
		}
	}
	for i, mi := range msgs {
		ds.attachFiles(i, mi.contents)
		if err := ds.messages[i].Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", itemName("messages", i, mi.ID), err)
		}
	}
	return ds, nil
}

func parseOrg(raw json.RawMessage) (store.Organization, error) {
	var v orgJSON
	if err := decodeStrict(bytes.NewReader(raw), &v); err != nil {
		return store.Organization{}, err
	}
	if v.RetainerActive == nil || v.APIEnabled == nil {
		return store.Organization{}, errors.New("retainerActive and apiEnabled are required (true or false)")
	}
	if v.Name == "" {
		return store.Organization{}, errors.New("name is required")
	}
	o := store.Organization{ID: v.ID, Name: v.Name, Plan: store.Plan(v.Plan), RetainerActive: *v.RetainerActive, APIEnabled: *v.APIEnabled}
	if auth.IsSandboxOrgID(o.ID) {
		return o, fmt.Errorf("an id ending in %s is reserved for sandboxes", auth.SandboxSuffix)
	}
	return o, o.Validate()
}

func parseKey(raw json.RawMessage) (apiKey, error) {
	var v keyJSON
	if err := decodeStrict(bytes.NewReader(raw), &v); err != nil {
		return apiKey{}, err
	}
	if v.OrgID == "" {
		return apiKey{}, errors.New("orgId is required")
	}
	if v.Key == "" || strings.TrimSpace(v.Key) != v.Key || strings.ContainsAny(v.Key, " \t\r\n") {
		return apiKey{}, errors.New("key is required, without spaces")
	}
	k := apiKey{OrgID: v.OrgID, Name: v.Name, Key: v.Key}
	if v.Scopes != nil {
		k.Scopes = make([]auth.Scope, len(v.Scopes))
		for i, s := range v.Scopes {
			k.Scopes[i] = auth.Scope(s)
		}
	}
	k.ProjectIDs = v.ProjectIDs
	k.Sandbox = v.Sandbox
	if k.Sandbox && k.Restricted() {
		return k, errors.New("a sandbox key reads all of its sandbox: leave out scopes and projectIds")
	}
	if !k.Sandbox && strings.HasPrefix(k.Key, auth.SandboxKeyPrefix) {
		return k, fmt.Errorf("a key that starts with %s is a sandbox key: add \"sandbox\": true", auth.SandboxKeyPrefix)
	}
	if err := k.Restriction.Validate(); err != nil {
		return k, err
	}
	var err error
	if k.ExpiresAt, err = optionalTime("expiresAt", v.ExpiresAt); err != nil {
		return k, err
	}
	if k.RevokedAt, err = optionalTime("revokedAt", v.RevokedAt); err != nil {
		return k, err
	}
	return k, nil
}

func parseProject(raw json.RawMessage) (store.Project, error) {
	var v projectJSON
	if err := decodeStrict(bytes.NewReader(raw), &v); err != nil {
		return store.Project{}, err
	}
	p := store.Project{ID: v.ID, OrgID: v.OrgID, Name: v.Name, Status: store.ProjectStatus(v.Status)}
	var err error
	if p.StartedAt, err = optionalTime("startedAt", v.StartedAt); err != nil {
		return p, err
	}
	if p.DueAt, err = optionalTime("dueAt", v.DueAt); err != nil {
		return p, err
	}
	if p.UpdatedAt, err = updatedAt(v.UpdatedAt); err != nil {
		return p, err
	}
	if err := requireName(v.Name); err != nil {
		return p, err
	}
	return p, p.Validate()
}

func parseMilestone(raw json.RawMessage) (store.Milestone, error) {
	var v milestoneJSON
	if err := decodeStrict(bytes.NewReader(raw), &v); err != nil {
		return store.Milestone{}, err
	}
	m := store.Milestone{ID: v.ID, OrgID: v.OrgID, ProjectID: v.ProjectID, Name: v.Name, Status: store.MilestoneStatus(v.Status)}
	var err error
	if m.DueAt, err = requiredTime("dueAt", v.DueAt); err != nil {
		return m, err
	}
	if m.CompletedAt, err = optionalTime("completedAt", v.CompletedAt); err != nil {
		return m, err
	}
	if m.UpdatedAt, err = updatedAt(v.UpdatedAt); err != nil {
		return m, err
	}
	if err := requireName(v.Name); err != nil {
		return m, err
	}
	return m, nil // validated by check, once its organization is known
}

// deliverableItem is a deliverable of a data file and the content of its
// file, nil when the item holds none.
type deliverableItem struct {
	store.Deliverable
	content *string
}

func parseDeliverable(raw json.RawMessage) (deliverableItem, error) {
	var v deliverableJSON
	if err := decodeStrict(bytes.NewReader(raw), &v); err != nil {
		return deliverableItem{}, err
	}
	d := store.Deliverable{
		ID: v.ID, OrgID: v.OrgID, ProjectID: v.ProjectID, Name: v.Name,
		Status:   store.DeliverableStatus(v.Status),
		FileName: v.FileName, ContentType: v.ContentType, SizeBytes: v.SizeBytes,
	}
	item := deliverableItem{Deliverable: d, content: v.Content}
	var err error
	if item.CreatedAt, err = requiredTime("createdAt", v.CreatedAt); err != nil {
		return item, err
	}
	if item.UpdatedAt, err = updatedAt(v.UpdatedAt); err != nil {
		return item, err
	}
	if err := requireName(v.Name); err != nil {
		return item, err
	}
	if v.Content != nil && d.SizeBytes != nil && *d.SizeBytes != int64(len(*v.Content)) {
		return item, fmt.Errorf("sizeBytes %d is not the length of content (%d bytes)", *d.SizeBytes, len(*v.Content))
	}
	return item, nil // validated by check, once its organization is known
}

func parseInvoice(raw json.RawMessage) (invoiceItem, error) {
	var v invoiceJSON
	if err := decodeStrict(bytes.NewReader(raw), &v); err != nil {
		return invoiceItem{}, err
	}
	item := invoiceItem{document: v.Document}
	i := &item.Invoice
	*i = store.Invoice{
		ID: v.ID, OrgID: v.OrgID, Number: v.Number, ProjectID: v.ProjectID,
		Status: store.InvoiceStatus(v.Status), Currency: v.Currency,
	}
	if v.Document != nil && *v.Document == "" {
		return item, errors.New("document is empty: leave it out for an invoice without one")
	}
	if v.Number == "" {
		return item, errors.New("number is required")
	}
	if v.Total == nil || v.AmountDue == nil {
		return item, errors.New("total and amountDue are required (integer minor units)")
	}
	i.Total, i.AmountDue = *v.Total, *v.AmountDue
	var err error
	if i.IssuedAt, err = requiredTime("issuedAt", v.IssuedAt); err != nil {
		return item, err
	}
	if i.DueAt, err = requiredTime("dueAt", v.DueAt); err != nil {
		return item, err
	}
	if i.PaidAt, err = optionalTime("paidAt", v.PaidAt); err != nil {
		return item, err
	}
	if i.UpdatedAt, err = updatedAt(v.UpdatedAt); err != nil {
		return item, err
	}
	return item, i.Validate()
}

func requireName(name string) error {
	if strings.TrimSpace(name) == "" {
		return errors.New("name is required")
	}
	return nil
}

// requiredTime parses an RFC 3339 timestamp that must be there. Times are
// kept in UTC at second precision, as the API shows them.
func requiredTime(field string, s *string) (time.Time, error) {
	if s == nil {
		return time.Time{}, fmt.Errorf("%s is required (an RFC 3339 time such as 2026-03-01T09:00:00Z)", field)
	}
	t, err := time.Parse(time.RFC3339, *s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %q is not an RFC 3339 time such as 2026-03-01T09:00:00Z", field, *s)
	}
	return t.UTC().Truncate(time.Second), nil
}

// optionalTime parses an RFC 3339 timestamp that may be null or missing.
func optionalTime(field string, s *string) (*time.Time, error) {
	if s == nil {
		return nil, nil
	}
	t, err := requiredTime(field, s)
	return &t, err
}

// updatedAt parses an item's updatedAt, which a file may hold (an item as
// the API shows it) or leave out (zero). Every store tracks changes
// (store.Changes) and so ignores it and dates every change itself.
func updatedAt(s *string) (time.Time, error) {
	if s == nil {
		return time.Time{}, nil
	}
	return requiredTime("updatedAt", s)
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
