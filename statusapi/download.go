package statusapi

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/internal/apidoc"
	"github.com/clientstatus/clientstatus/store"
)

// The link format and the order of the checks are documented in
// docs/handler.md, "Signed download links".

// downloadLink is the wire form of a signed link.
type downloadLink struct {
	URL       string `json:"url" oa:"format=uri-reference"`
	ExpiresAt string `json:"expiresAt" oa:"time"`
}

var downloadLinkWire = describeWire[downloadLink](apidoc.Wire{
	Name:        "DownloadLink",
	Description: "A signed URL to a deliverable's file. A plain GET on `url`, without an `Authorization` header, serves the file until `expiresAt`.",
	Examples:    `[{"url": "https://portal.example.com/api/v1/deliverables/dlv_acme_1_2/file?expires=1772356500&org=org_acme&signature=r5btJXmjjeFW_azDmHB9O8W4Wwaz-79mgDUxLT9cat0", "expiresAt": "2026-03-01T09:15:00Z"}]`,
	Fields: map[string]string{
		"url":       "The signed URL: absolute on the public URL the portal configured; without one, root-relative (`/api/v1/...`), to resolve against the URL called.",
		"expiresAt": "When the link stops working: 15 minutes after it was made.",
	},
})

// linkTo is the route function of the download route of kind (GET
// /v1/{path}/{id}/download, /v1/invoices/{id}/document): a signed link
// to the file of the path's item, which the caller must see, or the
// kind's none when it has no file.
func (h *handler) linkTo(kind fileKind) apiFunc {
	return func(r *http.Request, c caller) (response, error) {
		if err := noParams(r); err != nil {
			return response{}, err
		}
		id := r.PathValue("id")
		f, project, err := kind.read(h.st, r.Context(), c.Org.ID, id)
		if err == nil {
			err = c.seesOptional(project)
		}
		if err == nil && f.key == "" {
			err = kind.none
		}
		if err != nil {
			return response{}, err
		}
		return h.link(r, kind, c.Org.ID, id), nil
	}
}

// fileRoute is the public route at path that serves the file of a signed
// link with fn: it takes the link's parameters and answers
// the responses of every signed link; its description ends with
// signedLinkRules.
func fileRoute(path string, fn http.HandlerFunc, exempt string, op operation) route {
	op.Responses = map[int]string{200: "File", 206: "FilePart", 304: "FileNotModified", 403: "LinkRejected", 404: "NotFound", 409: "FileNotAvailable", 412: "FilePrecondition", 416: "FileRange", 500: "Internal", 503: "Unavailable"}
	return publicRoute(path, fn, exempt).describe(op, params.Org, params.Expires, params.Signature,
		params.Range, params.IfRange, params.IfMatch, params.FileIfNoneMatch, params.IfModifiedSince, params.IfUnmodifiedSince)
}

// signedLinkRules is what the document says of every signed link, after
// what it serves and the operation that makes it.
const signedLinkRules = "; use the link's URL as it is. No `Authorization` header is needed and no rate limit applies: the signature is the credential. A missing, repeated, extra or changed parameter is 403 `INVALID_SIGNATURE`; a link past its expiry 403 `LINK_EXPIRED`. Range and conditional requests follow RFC 9110 (Go's `http.ServeContent`); their 412 answer has no body, their 416 answer is plain text."

// fileKind is a kind of file that signed links serve: its path segment
// ("/v1/{path}/{id}/file"), the start of what its signature covers (so
// that no link of one kind is valid for another), and the word logs use.
// read reads the item id of org from the store: its file as served (no
// key when it has none, which is the error none) and its project (nil
// for none); its error is the store's.
type fileKind struct {
	path, macPrefix, noun string
	read                  func(st store.Store, ctx context.Context, org, id string) (servedFile, *string, error)
	none                  error
}

// The kinds of file: a deliverable's keeps the link format of the first
// contract (see docs/handler.md). An invoice's document is a PDF named
// after the invoice's number; an attachment always has its file.
var (
	deliverableFiles = fileKind{path: "deliverables", macPrefix: "v1\n", noun: "deliverable", none: errNoFile,
		read: func(st store.Store, ctx context.Context, org, id string) (servedFile, *string, error) {
			d, err := st.GetDeliverable(ctx, org, id)
			return servedFile{key: d.FileKey, name: deref(d.FileName), contentType: deref(d.ContentType), size: d.SizeBytes}, &d.ProjectID, err
		}}
	attachmentFiles = fileKind{path: "attachments", macPrefix: "v1 attachment\n", noun: "attachment",
		read: func(st store.Store, ctx context.Context, org, id string) (servedFile, *string, error) {
			a, err := st.GetAttachment(ctx, org, id)
			return servedFile{key: a.FileKey, name: a.FileName, contentType: a.ContentType, size: &a.SizeBytes}, a.ProjectID, err
		}}
	invoiceDocuments = fileKind{path: "invoices", macPrefix: "v1 invoice\n", noun: "invoice", none: errNoDocument,
		read: func(st store.Store, ctx context.Context, org, id string) (servedFile, *string, error) {
			i, err := st.GetInvoice(ctx, org, id)
			return servedFile{key: i.DocumentKey, name: "invoice-" + i.Number + ".pdf", contentType: "application/pdf"}, i.ProjectID, err
		}}
)

// link is the response of a download route: a signed link to the file of
// item id of org, valid for the link TTL.
func (h *handler) link(r *http.Request, kind fileKind, org, id string) response {
	expires := h.cfg.now().Add(h.cfg.linkTTL).Unix()
	exp := strconv.FormatInt(expires, 10)
	q := url.Values{"org": {org}, "expires": {exp}, "signature": {h.sign(kind, org, id, exp)}}
	// The link is a credential for its lifetime: no cache keeps it.
	return credential(downloadLink{
		URL:       h.publicURL(r) + "/v1/" + kind.path + "/" + url.PathEscape(id) + "/file?" + q.Encode(),
		ExpiresAt: timestamp(time.Unix(expires, 0)),
	})
}

var errNoFile = envelope.New(envelope.FileNotAvailable, "this deliverable has no file attached")

// errFileMissing answers a deliverable that has a file attached which the
// file source does not have: the same code as errNoFile, as the contract
// says, but the client learns that the file exists and is unavailable.
var errFileMissing = envelope.New(envelope.FileNotAvailable, "the attached file is not available; quote the request id to the service operator")

// sign returns the signature of a link (see the format in
// docs/handler.md; an attachment's starts "v1 attachment\n" instead of "v1\n", an
// invoice document's "v1 invoice\n").
func (h *handler) sign(kind fileKind, org, id, expires string) string {
	mac := hmac.New(sha256.New, h.cfg.signingKey)
	_, _ = io.WriteString(mac, kind.macPrefix+strconv.Itoa(len(org))+":"+org+"\n"+strconv.Itoa(len(id))+":"+id+"\n"+expires)
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

var errBadSignature = envelope.New(envelope.InvalidSignature, "the download link is not valid; ask for a new one")

// verify checks a link's query for the item id of kind and returns its
// organization. See the order of the checks above.
func (h *handler) verify(kind fileKind, id, rawQuery string) (string, error) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil || len(q) != 3 || len(q["org"]) != 1 || len(q["expires"]) != 1 || len(q["signature"]) != 1 {
		return "", errBadSignature
	}
	org, exp, sig := q["org"][0], q["expires"][0], q["signature"][0]
	if !hmac.Equal([]byte(sig), []byte(h.sign(kind, org, id, exp))) {
		return "", errBadSignature
	}
	expires, err := strconv.ParseInt(exp, 10, 64)
	if err != nil {
		return "", errBadSignature // we never sign such a value
	}
	if h.cfg.now().After(time.Unix(expires, 0)) {
		return "", envelope.New(envelope.LinkExpired, "the download link has expired; ask for a new one")
	}
	return org, nil
}

// servedFile is what a signed link serves: where the file is, and how to
// present it.
type servedFile struct {
	key, name, contentType string
	size                   *int64 // as listed to the client; nil when unknown
}

// serveSigned serves GET /v1/{path}/{id}/file, the signed link of kind:
// the item's file, read once the link is verified. An item deleted since
// the link was made (an attachment's message made internal) is 404, one
// whose file was taken away the kind's none.
func (h *handler) serveSigned(kind fileKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h.file(w, r, kind); err != nil {
			h.fail(w, r, err)
		}
	}
}

func (h *handler) file(w http.ResponseWriter, r *http.Request, kind fileKind) error {
	id := r.PathValue("id")
	org, err := h.verify(kind, id, r.URL.RawQuery)
	if err != nil {
		return err
	}
	if info := infoOf(w); info != nil {
		info.OrgID = org
	}
	// The timeout bounds the look-up and the opening, not the transfer:
	// files.Source promises the file outlives ctx.
	ctx, cancel := context.WithTimeout(r.Context(), h.cfg.timeout)
	defer cancel()
	r = r.WithContext(ctx)
	d, _, err := kind.read(h.st, ctx, org, id)
	if err == nil && d.key == "" {
		err = kind.none
	}
	if err != nil {
		return err
	}
	f, err := h.cfg.files.Open(ctx, d.key)
	if errors.Is(err, fs.ErrNotExist) {
		// The store says a file is attached, the source has none: the
		// data is broken, and only the operator can mend it.
		h.log(r, w, slog.LevelError, "statusapi: a "+kind.noun+"'s file is missing from the file source",
			"org_id", org, kind.noun+"_id", id, "err", err.Error())
		return errFileMissing
	}
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if d.size != nil && *d.size != info.Size() {
		// The list told the client one size; the bytes are the truth.
		h.log(r, w, slog.LevelWarn, "statusapi: a "+kind.noun+"'s sizeBytes differs from its file's size; serving the file",
			"org_id", org, kind.noun+"_id", id, "size_bytes", *d.size, "file_size", info.Size())
	}

	name := cmp.Or(d.name, "download")
	ctype := "application/octet-stream"
	if _, _, err := mime.ParseMediaType(d.contentType); err == nil {
		ctype = d.contentType
	}
	hd := w.Header()
	hd.Set("Content-Type", ctype)
	hd.Set("Content-Disposition", cmp.Or(mime.FormatMediaType("attachment", map[string]string{"filename": name}), "attachment"))
	if rs, ok := f.(io.ReadSeeker); ok {
		http.ServeContent(plainErrors{w}, r, name, info.ModTime(), rs)
		return nil
	}
	hd.Set("Content-Length", strconv.FormatInt(info.Size(), 10))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = io.Copy(w, f)
	}
	return nil
}

// plainErrors keeps http.ServeContent's error answers (412 for a failed
// If-Match, 416 for a range past the end) from claiming the file's content
// type: the 416 is plain text, as the OpenAPI document says, and the 412
// has no body. ServeContent sets text/plain itself for the 416 (through
// http.Error), not for the bodiless 412.
type plainErrors struct{ http.ResponseWriter }

func (w plainErrors) WriteHeader(code int) {
	if code >= 400 {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	}
	w.ResponseWriter.WriteHeader(code)
}

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
