// Command smoke calls a running example server through the client ogen
// generated from the OpenAPI document, and fails unless every call is
// answered as the document says and the client decodes it. Run by
// .ci/generators in its scratch module.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net/url"
	"strconv"
	"strings"

	"example.com/ogenclient/api"
)

type key string

func (k key) BearerAuth(context.Context, api.OperationName) (api.BearerAuth, error) {
	return api.BearerAuth{Token: string(k)}, nil
}

func main() {
	base := flag.String("base-url", "", "the server's URL, without /v1")
	apiKey := flag.String("key", "", "an API key")
	flag.Parse()
	ctx := context.Background()
	c, err := api.NewClient(*base, key(*apiKey))
	check(err)

	projects := must[*api.ProjectListResponseHeaders](c.ListProjects(ctx, api.ListProjectsParams{Limit: api.NewOptInt(100)}))
	if len(projects.Response.Data) == 0 {
		log.Fatal("listProjects: no projects")
	}
	p := projects.Response.Data[0]
	got := must[*api.ProjectResponseHeaders](c.GetProject(ctx, api.GetProjectParams{ID: p.ID}))
	if got.Response.Data.ID != p.ID {
		log.Fatalf("getProject: got %q, want %q", got.Response.Data.ID, p.ID)
	}
	must[*api.MilestoneListResponseHeaders](c.ListMilestones(ctx, api.ListMilestonesParams{ID: p.ID}))
	must[*api.InvoiceListResponseHeaders](c.ListInvoices(ctx, api.ListInvoicesParams{Limit: api.NewOptInt(100)}))
	must[*api.ListHead](c.ListProjectsHead(ctx, api.ListProjectsHeadParams{}))
	must[*api.NotFoundHeaders](c.GetProject(ctx, api.GetProjectParams{ID: "no-such-project"}))
	must[*api.OpenAPIDocumentHeaders](c.GetOpenAPIDocument(ctx, api.GetOpenAPIDocumentParams{}))

	deliverables := must[*api.DeliverableListResponseHeaders](c.ListDeliverables(ctx, api.ListDeliverablesParams{Limit: api.NewOptInt(100)}))
	var withFile *api.Deliverable
	for i, d := range deliverables.Response.Data {
		if !d.SizeBytes.Null {
			withFile = &deliverables.Response.Data[i]
			break
		}
	}
	if withFile == nil {
		log.Fatal("listDeliverables: no deliverable with a file")
	}
	link := must[*api.DownloadLinkResponseHeaders](c.DownloadDeliverable(ctx, api.DownloadDeliverableParams{ID: withFile.ID}))
	u, err := url.Parse(link.Response.Data.URL) // a uri-reference: ogen keeps it a string
	check(err)
	q := u.Query()
	expires, err := strconv.ParseInt(q.Get("expires"), 10, 64)
	check(err)
	file := api.GetDeliverableFileParams{ID: withFile.ID, Org: q.Get("org"), Expires: expires, Signature: q.Get("signature")}
	whole := must[*api.FileHeaders](c.GetDeliverableFile(ctx, file))
	if n := int64(len(read(whole.Response.Data))); n != withFile.SizeBytes.Value {
		log.Fatalf("getDeliverableFile: %d bytes, want %d", n, withFile.SizeBytes.Value)
	}
	file.Range = api.NewOptString("bytes=0-1")
	one := must[*api.FilePartHeaders](c.GetDeliverableFile(ctx, file))
	if !one.ContentRange.Set || len(read(one.Response.Data)) != 2 {
		log.Fatal("getDeliverableFile, one range: no Content-Range or not 2 bytes")
	}
	file.Range = api.NewOptString("bytes=0-1,3-4")
	several := must[*api.FilePartHeaders](c.GetDeliverableFile(ctx, file))
	if several.ContentRange.Set || !strings.Contains(read(several.Response.Data), "Content-Range: bytes 3-4/") {
		log.Fatal("getDeliverableFile, two ranges: not multipart/byteranges")
	}

	bad, err := api.NewClient(*base, key("not-a-key"))
	check(err)
	must[*api.UnauthorizedHeaders](bad.ListInvoices(ctx, api.ListInvoicesParams{}))
	fmt.Println("ogen client: ok")
}

// must returns res as a T, the answer the call should have had, or stops.
func must[T any](res any, err error) T {
	check(err)
	t, ok := res.(T)
	if !ok {
		log.Fatalf("got a %T, want a %T", res, *new(T))
	}
	return t
}

func read(r io.Reader) string {
	b, err := io.ReadAll(r)
	check(err)
	return string(b)
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
