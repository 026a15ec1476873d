// Command smoke calls a running example server through the client
// oapi-codegen generated from the OpenAPI document, and fails unless every
// call is answered as the document says and the client decodes it. Run by
// .ci/generators in its scratch module.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"example.com/oapiclient/api"
)

func main() {
	base := flag.String("base-url", "", "the server's URL, without /v1")
	apiKey := flag.String("key", "", "an API key")
	flag.Parse()
	ctx := context.Background()
	c := client(*base, *apiKey)

	limit := api.Limit(100)
	projects, err := c.ListProjectsWithResponse(ctx, &api.ListProjectsParams{Limit: &limit})
	check(err)
	expect("listProjects", projects.StatusCode(), 200, projects.JSON200 != nil && projects.Headers200 != nil)
	if len(projects.JSON200.Data) == 0 {
		log.Fatal("listProjects: no projects")
	}
	p := projects.JSON200.Data[0]
	got, err := c.GetProjectWithResponse(ctx, p.Id, nil)
	check(err)
	expect("getProject", got.StatusCode(), 200, got.JSON200 != nil && got.JSON200.Data.Id == p.Id)
	ms, err := c.ListMilestonesWithResponse(ctx, p.Id, nil)
	check(err)
	expect("listMilestones", ms.StatusCode(), 200, ms.JSON200 != nil)
	inv, err := c.ListInvoicesWithResponse(ctx, &api.ListInvoicesParams{Limit: &limit})
	check(err)
	expect("listInvoices", inv.StatusCode(), 200, inv.JSON200 != nil)
	head, err := c.ListProjectsHeadWithResponse(ctx, nil)
	check(err)
	expect("listProjectsHead", head.StatusCode(), 200, head.Headers200 != nil && len(head.Body) == 0)
	missing, err := c.GetProjectWithResponse(ctx, "no-such-project", nil)
	check(err)
	expect("getProject, unknown id", missing.StatusCode(), 404, missing.JSON404 != nil && missing.JSON404.Error.Code == api.NOTFOUND)
	doc, err := c.GetOpenAPIDocumentWithResponse(ctx, nil)
	check(err)
	expect("getOpenAPIDocument", doc.StatusCode(), 200, doc.JSON200 != nil)

	dl, err := c.ListDeliverablesWithResponse(ctx, &api.ListDeliverablesParams{Limit: &limit})
	check(err)
	expect("listDeliverables", dl.StatusCode(), 200, dl.JSON200 != nil)
	var withFile *api.Deliverable
	for i, d := range dl.JSON200.Data {
		if d.SizeBytes != nil {
			withFile = &dl.JSON200.Data[i]
			break
		}
	}
	if withFile == nil {
		log.Fatal("listDeliverables: no deliverable with a file")
	}
	link, err := c.DownloadDeliverableWithResponse(ctx, withFile.Id, nil)
	check(err)
	expect("downloadDeliverable", link.StatusCode(), 200, link.JSON200 != nil)
	u, err := url.Parse(link.JSON200.Data.Url)
	check(err)
	q := u.Query()
	expires, err := strconv.ParseInt(q.Get("expires"), 10, 64)
	check(err)
	file := api.GetDeliverableFileParams{Org: q.Get("org"), Expires: expires, Signature: q.Get("signature")}
	whole, err := c.GetDeliverableFileWithResponse(ctx, withFile.Id, &file)
	check(err)
	expect("getDeliverableFile", whole.StatusCode(), 200, int64(len(whole.Body)) == *withFile.SizeBytes)
	one := api.Range("bytes=0-1")
	file.Range = &one
	part, err := c.GetDeliverableFileWithResponse(ctx, withFile.Id, &file)
	check(err)
	expect("getDeliverableFile, one range", part.StatusCode(), 206,
		len(part.Body) == 2 && part.Headers206 != nil && part.Headers206.ContentRange != nil)
	several := api.Range("bytes=0-1,3-4")
	file.Range = &several
	parts, err := c.GetDeliverableFileWithResponse(ctx, withFile.Id, &file)
	check(err)
	expect("getDeliverableFile, two ranges", parts.StatusCode(), 206,
		parts.Headers206 != nil && parts.Headers206.ContentRange == nil && strings.Contains(string(parts.Body), "Content-Range: bytes 3-4/"))

	refused, err := client(*base, "not-a-key").ListInvoicesWithResponse(ctx, nil)
	check(err)
	expect("listInvoices, bad key", refused.StatusCode(), 401, refused.JSON401 != nil && refused.JSON401.Error.Code == api.UNAUTHORIZED)
	fmt.Println("oapi-codegen client: ok")
}

func client(base, key string) *api.ClientWithResponses {
	c, err := api.NewClientWithResponses(base, api.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+key)
		return nil
	}))
	check(err)
	return c
}

// expect stops unless the call was answered with want and decoded as ok
// says.
func expect(call string, status, want int, ok bool) {
	if status != want || !ok {
		log.Fatalf("%s: status %d (want %d), decoded as expected: %t", call, status, want, ok)
	}
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
