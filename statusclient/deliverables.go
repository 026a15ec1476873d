package statusclient

import (
	"context"
	"iter"
	"net/url"
	"time"
)

// DeliverableStatus is the state of a deliverable.
type DeliverableStatus string

// The states of a deliverable.
const (
	DeliverablePending  DeliverableStatus = "pending"
	DeliverableInReview DeliverableStatus = "in_review"
	DeliverableApproved DeliverableStatus = "approved"
	DeliverableRejected DeliverableStatus = "rejected"
)

// Deliverable is something the agency hands over. Its file, once attached,
// is fetched through DownloadDeliverable.
type Deliverable struct {
	ID          string            `json:"id"`
	ProjectID   string            `json:"projectId"`
	Name        string            `json:"name"`
	Status      DeliverableStatus `json:"status"`
	FileName    *string           `json:"fileName"`    // nil until a file is attached
	ContentType *string           `json:"contentType"` // nil until a file is attached
	SizeBytes   *int64            `json:"sizeBytes"`   // nil until a file is attached
	CreatedAt   time.Time         `json:"createdAt"`
	UpdatedAt   time.Time         `json:"updatedAt"`
	// Project is the deliverable's project, asked with ExpandProject;
	// nil otherwise, or for a project the key may not see.
	Project *ProjectRef `json:"project,omitempty"`
}

// DeliverableListOptions selects deliverables. Zero values leave the
// server's defaults: page 1, 20 a page, any status, any project. An unknown
// ProjectID gives an empty list, not an error.
type DeliverableListOptions struct {
	ListOptions
	Status    DeliverableStatus `url:"status"`
	ProjectID string            `url:"projectId"`
	// UpdatedSince keeps those updated at or after it (see ListOptions).
	UpdatedSince time.Time `url:"updatedSince"`
	// IfNoneMatch makes the call conditional (see ListOptions).
	IfNoneMatch string `header:"If-None-Match"`
	// Expand, when ExpandProject, fills each deliverable's Project.
	Expand Expand `url:"expand"`
}

// DownloadLink is a signed URL to a file: a deliverable's (see
// DownloadDeliverable), a message attachment's (see DownloadAttachment)
// or an invoice's document (see InvoiceDocument).
// A plain GET on URL, without the API key, serves the file until ExpiresAt
// (15 minutes after it was made); after that it answers 403 LINK_EXPIRED.
// URL is always absolute: a server without a configured public URL sends
// a root-relative link, which the client resolves against its base URL.
type DownloadLink struct {
	URL       string    `json:"url"`
	ExpiresAt time.Time `json:"expiresAt"`
}

var deliverables = collection[Deliverable, DeliverableListOptions]{path: "/deliverables"}

// ListDeliverables returns one page of the organization's deliverables,
// ordered by CreatedAt descending, then by ID; with UpdatedSince, by
// UpdatedAt ascending, then ID.
func (c *Client) ListDeliverables(ctx context.Context, opts DeliverableListOptions) ([]Deliverable, *Response, error) {
	return deliverables.list(ctx, c, opts)
}

// AllDeliverables walks every page of ListDeliverables and yields each
// deliverable once (see ListOptions).
func (c *Client) AllDeliverables(ctx context.Context, opts DeliverableListOptions) iter.Seq2[Deliverable, error] {
	return deliverables.all(ctx, c, opts)
}

// GetDeliverable returns one deliverable, exactly as ListDeliverables has
// it. An id of no deliverable the key can see is an *Error with Code
// CodeNotFound. opts, when given, may ask for its project
// (ExpandProject).
func (c *Client) GetDeliverable(ctx context.Context, id string, opts ...ItemOptions) (Deliverable, *Response, error) {
	return deliverables.get(ctx, c, id, opts)
}

// DownloadDeliverable returns a fresh signed link to a deliverable's file.
// A deliverable with no file attached is an *Error with Code
// CodeFileNotAvailable (409); an unknown one, CodeNotFound.
func (c *Client) DownloadDeliverable(ctx context.Context, id string) (DownloadLink, *Response, error) {
	return c.downloadLink(ctx, deliverables.path, id, "/download")
}

// downloadLink GETs the download route prefix/{id}+suffix and returns
// its link made absolute: a server without a public URL sends a
// root-relative one ("/api/v1/deliverables/d1/file?..."), which is
// resolved against the client's base URL, as RFC 3986 resolves it
// against the URL called.
func (c *Client) downloadLink(ctx context.Context, prefix, id, suffix string) (DownloadLink, *Response, error) {
	path, err := itemPath(prefix, id)
	if err != nil {
		return DownloadLink{}, nil, err
	}
	path += suffix
	env, resp, err := get[DownloadLink](ctx, c, request{path: path})
	if err != nil {
		return env.Data, resp, err
	}
	link := env.Data
	if ref, perr := url.Parse(link.URL); perr == nil && !ref.IsAbs() {
		if base, berr := url.Parse(c.base + path); berr == nil {
			link.URL = base.ResolveReference(ref).String()
		}
	}
	return link, resp, nil
}
