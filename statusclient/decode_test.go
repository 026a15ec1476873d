package statusclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusclient"
)

// Bodies written by hand from the wire contract (the OpenAPI document), so that a wrong JSON name in the
// client's types cannot hide behind the same mistake in a fake server.
var contractBodies = map[string]string{
	"/v1/projects": `{"data":[
		{"id":"p1","name":"Site","status":"in_progress","startedAt":"2026-01-05T09:00:00Z","dueAt":"2026-06-30T17:00:00Z","updatedAt":"2026-02-01T10:30:00Z"},
		{"id":"p2","name":"Retainer","status":"planned","startedAt":null,"dueAt":null,"updatedAt":"2026-01-01T00:00:00Z"}],
		"meta":{"page":2,"per_page":2,"total":7}}`,
	"/v1/projects/p%2F1": `{"data":{"id":"p/1","name":"Site","status":"on_hold","startedAt":null,"dueAt":null,"updatedAt":"2026-01-01T00:00:00Z"}}`,
	"/v1/projects/p1/milestones": `{"data":[
		{"id":"m1","projectId":"p1","name":"Design","status":"completed","dueAt":"2026-02-01T00:00:00Z","completedAt":"2026-01-30T16:00:00Z","updatedAt":"2026-01-30T16:00:05Z"},
		{"id":"m2","projectId":"p1","name":"Build","status":"pending","dueAt":"2026-04-01T00:00:00Z","completedAt":null,"updatedAt":"2026-01-02T00:00:00Z"}],
		"meta":{"page":1,"per_page":20,"total":2}}`,
	"/v1/deliverables": `{"data":[
		{"id":"d1","projectId":"p1","name":"Mockups","status":"approved","fileName":"mockups.pdf","contentType":"application/pdf","sizeBytes":5242880,"createdAt":"2026-01-20T08:00:00Z","updatedAt":"2026-01-21T08:00:00Z"},
		{"id":"d2","projectId":"p1","name":"Copy","status":"pending","fileName":null,"contentType":null,"sizeBytes":null,"createdAt":"2026-01-19T08:00:00Z","updatedAt":"2026-01-19T08:00:00Z"}],
		"meta":{"page":1,"per_page":20,"total":2}}`,
	"/v1/deliverables/d1/download": `{"data":{"url":"https://portal.example.com/api/v1/files/d1?exp=1&sig=abc","expiresAt":"2026-03-01T09:15:00Z"}}`,
	"/v1/invoices": `{"data":[
		{"id":"i1","number":"INV-0001","projectId":"p1","status":"paid","currency":"EUR","total":123456,"amountDue":0,"issuedAt":"2026-01-31T00:00:00Z","dueAt":"2026-02-28T00:00:00Z","paidAt":"2026-02-10T12:00:00Z","updatedAt":"2026-02-10T12:00:01Z"},
		{"id":"i2","number":"INV-0002","projectId":null,"status":"open","currency":"USD","total":50000,"amountDue":50000,"issuedAt":"2026-01-15T00:00:00Z","dueAt":"2026-02-15T00:00:00Z","paidAt":null,"updatedAt":"2026-01-15T00:00:00Z"}],
		"meta":{"page":1,"per_page":20,"total":2}}`,
	"/v1/threads": `{"data":[
		{"id":"t1","projectId":"p1","subject":"Launch date","status":"open","about":{"type":"milestone","id":"m1"},"messageCount":2,"createdAt":"2026-01-06T09:00:00Z","lastMessageAt":"2026-01-07T10:00:00Z","resolvedAt":null,"updatedAt":"2026-01-07T10:00:00Z"},
		{"id":"t2","projectId":null,"subject":"Billing contact","status":"resolved","about":null,"messageCount":0,"createdAt":"2026-01-02T09:00:00Z","lastMessageAt":null,"resolvedAt":"2026-01-03T09:00:00Z","updatedAt":"2026-01-03T09:00:00Z"}],
		"meta":{"page":1,"per_page":20,"total":2}}`,
	"/v1/threads/t%2F1": `{"data":{"id":"t/1","projectId":null,"subject":"Hello","status":"open","about":{"type":"invoice","id":"i1"},"messageCount":0,"createdAt":"2026-01-06T09:00:00Z","lastMessageAt":null,"resolvedAt":null,"updatedAt":"2026-01-06T09:00:00Z"}}`,
	"/v1/deletions": `{"data":[
		{"type":"project","id":"p9","deletedAt":"2026-03-01T09:00:00Z"},
		{"type":"milestone","id":"m9","deletedAt":"2026-03-01T09:00:00Z"}],
		"meta":{"page":1,"per_page":20,"total":2}}`,
	"/v1/threads/t1/messages":       threadMessagesBody,
	"/v1/messages":                  threadMessagesBody,
	"/v1/attachments/att1/download": `{"data":{"url":"https://portal.example.com/api/v1/attachments/att1/file?exp=1&sig=abc","expiresAt":"2026-03-01T09:15:00Z"}}`,
}

const threadMessagesBody = `{"data":[
	{"id":"msg1","threadId":"t1","author":{"name":"Ana","side":"agency"},"body":"Can we move it to March?","attachments":[{"id":"att1","fileName":"plan.txt","contentType":"text/plain","sizeBytes":42}],"createdAt":"2026-01-06T09:00:00Z","editedAt":"2026-01-06T09:05:00Z","updatedAt":"2026-01-06T09:05:00Z"},
	{"id":"msg2","threadId":"t1","author":{"name":"Bo","side":"client"},"body":"Yes.","attachments":[],"createdAt":"2026-01-07T10:00:00Z","editedAt":null,"updatedAt":"2026-01-07T10:00:00Z"}],
	"meta":{"page":1,"per_page":20,"total":2}}`

// threadMessages are the items of threadMessagesBody.
var threadMessages = []statusclient.Message{
	{ID: "msg1", ThreadID: "t1", Author: statusclient.Author{Name: "Ana", Side: statusclient.SideAgency}, Body: "Can we move it to March?",
		Attachments: []statusclient.Attachment{{ID: "att1", FileName: "plan.txt", ContentType: "text/plain", SizeBytes: 42}},
		CreatedAt:   ts("2026-01-06T09:00:00Z"), EditedAt: ptr(ts("2026-01-06T09:05:00Z")), UpdatedAt: ts("2026-01-06T09:05:00Z")},
	{ID: "msg2", ThreadID: "t1", Author: statusclient.Author{Name: "Bo", Side: statusclient.SideClient}, Body: "Yes.",
		Attachments: []statusclient.Attachment{}, CreatedAt: ts("2026-01-07T10:00:00Z"), UpdatedAt: ts("2026-01-07T10:00:00Z")},
}

// contractServer answers each path of contractBodies with its body, and
// records the last request.
func contractServer(t *testing.T) (*statusclient.Client, *http.Request) {
	t.Helper()
	last := new(http.Request)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*last = *r.Clone(context.Background())
		body, ok := contractBodies[r.URL.EscapedPath()]
		if !ok {
			writeError(w, http.StatusNotFound, "NOT_FOUND", "no route "+r.URL.EscapedPath(), "")
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return statusclient.New(srv.URL+"/v1", "k"), last
}

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func ptr[T any](v T) *T { return &v }

func TestDecodesEveryField(t *testing.T) {
	ctx := context.Background()

	t.Run("projects", func(t *testing.T) {
		is := is.New(t)
		c, last := contractServer(t)
		items, resp, err := c.ListProjects(ctx, statusclient.ProjectListOptions{ListOptions: statusclient.ListOptions{Page: 2, Limit: 2}, Status: statusclient.ProjectInProgress})
		is.NoErr(err)
		is.Equal(last.URL.RawQuery, "limit=2&page=2&status=in_progress") // options are sent as the contract names them
		is.Equal(resp.Meta, statusclient.Meta{Page: 2, PerPage: 2, Total: 7})
		is.Equal(resp.NextPage, 3) // 2 of 7 a page: pages 3 and 4 follow
		is.Equal(items, []statusclient.Project{
			{ID: "p1", Name: "Site", Status: statusclient.ProjectInProgress, StartedAt: ptr(ts("2026-01-05T09:00:00Z")), DueAt: ptr(ts("2026-06-30T17:00:00Z")), UpdatedAt: ts("2026-02-01T10:30:00Z")},
			{ID: "p2", Name: "Retainer", Status: statusclient.ProjectPlanned, UpdatedAt: ts("2026-01-01T00:00:00Z")},
		})
	})

	t.Run("project, id escaped", func(t *testing.T) {
		is := is.New(t)
		c, _ := contractServer(t)
		p, _, err := c.GetProject(ctx, "p/1")
		is.NoErr(err)
		is.Equal(p, statusclient.Project{ID: "p/1", Name: "Site", Status: statusclient.ProjectOnHold, UpdatedAt: ts("2026-01-01T00:00:00Z")})
	})

	t.Run("milestones", func(t *testing.T) {
		is := is.New(t)
		c, last := contractServer(t)
		items, _, err := c.ListMilestones(ctx, "p1", statusclient.MilestoneListOptions{})
		is.NoErr(err)
		is.Equal(last.URL.RawQuery, "") // zero options leave the server's defaults
		is.Equal(items, []statusclient.Milestone{
			{ID: "m1", ProjectID: "p1", Name: "Design", Status: statusclient.MilestoneCompleted, DueAt: ts("2026-02-01T00:00:00Z"), CompletedAt: ptr(ts("2026-01-30T16:00:00Z")), UpdatedAt: ts("2026-01-30T16:00:05Z")},
			{ID: "m2", ProjectID: "p1", Name: "Build", Status: statusclient.MilestonePending, DueAt: ts("2026-04-01T00:00:00Z"), UpdatedAt: ts("2026-01-02T00:00:00Z")},
		})
	})

	t.Run("deliverables", func(t *testing.T) {
		is := is.New(t)
		c, last := contractServer(t)
		items, _, err := c.ListDeliverables(ctx, statusclient.DeliverableListOptions{ProjectID: "p1", Status: statusclient.DeliverableApproved})
		is.NoErr(err)
		is.Equal(last.URL.RawQuery, "projectId=p1&status=approved")
		is.Equal(items, []statusclient.Deliverable{
			{ID: "d1", ProjectID: "p1", Name: "Mockups", Status: statusclient.DeliverableApproved, FileName: ptr("mockups.pdf"), ContentType: ptr("application/pdf"), SizeBytes: ptr(int64(5242880)), CreatedAt: ts("2026-01-20T08:00:00Z"), UpdatedAt: ts("2026-01-21T08:00:00Z")},
			{ID: "d2", ProjectID: "p1", Name: "Copy", Status: statusclient.DeliverablePending, CreatedAt: ts("2026-01-19T08:00:00Z"), UpdatedAt: ts("2026-01-19T08:00:00Z")},
		})
	})

	t.Run("download", func(t *testing.T) {
		is := is.New(t)
		c, _ := contractServer(t)
		link, _, err := c.DownloadDeliverable(ctx, "d1")
		is.NoErr(err)
		is.Equal(link, statusclient.DownloadLink{URL: "https://portal.example.com/api/v1/files/d1?exp=1&sig=abc", ExpiresAt: ts("2026-03-01T09:15:00Z")})
	})

	t.Run("invoices", func(t *testing.T) {
		is := is.New(t)
		c, last := contractServer(t)
		items, _, err := c.ListInvoices(ctx, statusclient.InvoiceListOptions{Status: statusclient.InvoiceOpen, ProjectID: "p 1&x"})
		is.NoErr(err)
		is.Equal(last.URL.Query().Get("projectId"), "p 1&x") // filter values are query-escaped
		is.Equal(items, []statusclient.Invoice{
			{ID: "i1", Number: "INV-0001", ProjectID: ptr("p1"), Status: statusclient.InvoicePaid, Currency: "EUR", Total: 123456, AmountDue: 0, IssuedAt: ts("2026-01-31T00:00:00Z"), DueAt: ts("2026-02-28T00:00:00Z"), PaidAt: ptr(ts("2026-02-10T12:00:00Z")), UpdatedAt: ts("2026-02-10T12:00:01Z")},
			{ID: "i2", Number: "INV-0002", Status: statusclient.InvoiceOpen, Currency: "USD", Total: 50000, AmountDue: 50000, IssuedAt: ts("2026-01-15T00:00:00Z"), DueAt: ts("2026-02-15T00:00:00Z"), UpdatedAt: ts("2026-01-15T00:00:00Z")},
		})
	})
}

func TestDecodesEveryThreadField(t *testing.T) {
	ctx := context.Background()
	since := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

	t.Run("threads", func(t *testing.T) {
		is := is.New(t)
		c, last := contractServer(t)
		items, resp, err := c.ListThreads(ctx, statusclient.ThreadListOptions{Status: statusclient.ThreadOpen, ProjectID: "p1", UpdatedSince: since})
		is.NoErr(err)
		is.Equal(last.URL.RawQuery, "projectId=p1&status=open&updatedSince=2026-03-01T09%3A00%3A00Z") // as the contract names them
		is.Equal(resp.Meta.Total, 2)
		is.Equal(items, []statusclient.Thread{
			{ID: "t1", ProjectID: ptr("p1"), Subject: "Launch date", Status: statusclient.ThreadOpen,
				About: &statusclient.About{Type: statusclient.AboutMilestone, ID: "m1"}, MessageCount: 2,
				CreatedAt: ts("2026-01-06T09:00:00Z"), LastMessageAt: ptr(ts("2026-01-07T10:00:00Z")), UpdatedAt: ts("2026-01-07T10:00:00Z")},
			{ID: "t2", Subject: "Billing contact", Status: statusclient.ThreadResolved,
				CreatedAt: ts("2026-01-02T09:00:00Z"), ResolvedAt: ptr(ts("2026-01-03T09:00:00Z")), UpdatedAt: ts("2026-01-03T09:00:00Z")},
		})
	})

	t.Run("thread, id escaped", func(t *testing.T) {
		is := is.New(t)
		c, _ := contractServer(t)
		th, _, err := c.GetThread(ctx, "t/1")
		is.NoErr(err)
		is.Equal(th, statusclient.Thread{ID: "t/1", Subject: "Hello", Status: statusclient.ThreadOpen,
			About: &statusclient.About{Type: statusclient.AboutInvoice, ID: "i1"}, CreatedAt: ts("2026-01-06T09:00:00Z"), UpdatedAt: ts("2026-01-06T09:00:00Z")})
	})

	t.Run("thread messages", func(t *testing.T) {
		is := is.New(t)
		c, last := contractServer(t)
		items, _, err := c.ListThreadMessages(ctx, "t1", statusclient.ThreadMessageListOptions{ListOptions: statusclient.ListOptions{Limit: 5}, UpdatedSince: since})
		is.NoErr(err)
		is.Equal(last.URL.RawQuery, "limit=5&updatedSince=2026-03-01T09%3A00%3A00Z")
		is.Equal(items, threadMessages)
	})

	t.Run("messages", func(t *testing.T) {
		is := is.New(t)
		c, last := contractServer(t)
		items, _, err := c.ListMessages(ctx, statusclient.MessageListOptions{ThreadID: "t1", ProjectID: "p1"})
		is.NoErr(err)
		is.Equal(last.URL.RawQuery, "projectId=p1&threadId=t1")
		is.Equal(items, threadMessages)
	})

	t.Run("attachment download", func(t *testing.T) {
		is := is.New(t)
		c, _ := contractServer(t)
		link, _, err := c.DownloadAttachment(ctx, "att1")
		is.NoErr(err)
		is.Equal(link, statusclient.DownloadLink{URL: "https://portal.example.com/api/v1/attachments/att1/file?exp=1&sig=abc", ExpiresAt: ts("2026-03-01T09:15:00Z")})
	})
}

func TestUpdatedSinceIsSentInTheContractsFormat(t *testing.T) {
	paris := time.FixedZone("Paris", 3600)
	tests := []struct {
		name  string
		since time.Time
		want  string // the query's updatedSince, "" for absent
	}{
		{"zero: no bound", time.Time{}, ""},
		{"UTC", time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), "2026-03-01T09:00:00Z"},
		{"another zone, in UTC", time.Date(2026, 3, 1, 10, 0, 0, 0, paris), "2026-03-01T09:00:00Z"},
		{"a fraction, dropped", time.Date(2026, 3, 1, 9, 0, 0, 999_999_999, time.UTC), "2026-03-01T09:00:00Z"},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			c, last := contractServer(t)
			calls := []func() error{
				func() error {
					_, _, err := c.ListProjects(ctx, statusclient.ProjectListOptions{UpdatedSince: tt.since})
					return err
				},
				func() error {
					_, _, err := c.ListMilestones(ctx, "p1", statusclient.MilestoneListOptions{UpdatedSince: tt.since})
					return err
				},
				func() error {
					_, _, err := c.ListDeliverables(ctx, statusclient.DeliverableListOptions{UpdatedSince: tt.since})
					return err
				},
				func() error {
					_, _, err := c.ListInvoices(ctx, statusclient.InvoiceListOptions{UpdatedSince: tt.since})
					return err
				},
				func() error {
					_, _, err := c.ListThreads(ctx, statusclient.ThreadListOptions{UpdatedSince: tt.since})
					return err
				},
				func() error {
					_, _, err := c.ListThreadMessages(ctx, "t1", statusclient.ThreadMessageListOptions{UpdatedSince: tt.since})
					return err
				},
				func() error {
					_, _, err := c.ListMessages(ctx, statusclient.MessageListOptions{UpdatedSince: tt.since})
					return err
				},
			}
			for _, call := range calls {
				is.NoErr(call())
				is.Equal(last.URL.Query().Get("updatedSince"), tt.want) // UTC, whole seconds, or absent
				is.Equal(last.URL.Query().Has("updatedSince"), tt.want != "")
			}
		})
	}
}

func TestSendsKeyAndUserAgent(t *testing.T) {
	is := is.New(t)
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		writeJSON(w, http.StatusOK, map[string]any{"data": []any{}, "meta": map[string]int{"page": 1, "per_page": 20, "total": 0}})
	}))
	defer srv.Close()
	c := statusclient.New(srv.URL, "sk_live_123", statusclient.WithUserAgent("portal-sync/2"))
	_, _, err := c.ListInvoices(context.Background(), statusclient.InvoiceListOptions{})
	is.NoErr(err)
	is.Equal(got.Get("Authorization"), "Bearer sk_live_123")
	is.Equal(got.Get("User-Agent"), "portal-sync/2")
}

func TestBaseURL(t *testing.T) {
	tests := []struct {
		base string // with %s for the server's address
		path string // the path the server must see
	}{
		{"%s/v1", "/v1/projects/p1"},
		{"%s/v1/", "/v1/projects/p1"},
		{"%s", "/v1/projects/p1"},
		{"%s/api/v1", "/api/v1/projects/p1"},
		{"%s/api/", "/api/v1/projects/p1"},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			is := is.New(t)
			var path string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				path = r.URL.Path
				writeJSON(w, http.StatusOK, map[string]any{"data": map[string]string{"id": "p1"}})
			}))
			defer srv.Close()
			c := statusclient.New(strings.ReplaceAll(tt.base, "%s", srv.URL), "k")
			p, _, err := c.GetProject(context.Background(), "p1")
			is.NoErr(err)
			is.Equal(p.ID, "p1")
			is.Equal(path, tt.path)
		})
	}
}

func TestBadBaseURLFailsEveryCall(t *testing.T) {
	for _, base := range []string{"", "portal.example.com/v1", "ftp://portal.example.com/v1", "https://portal.example.com/v1?x=1", "http://[::1"} {
		t.Run(base, func(t *testing.T) {
			is := is.New(t)
			c := statusclient.New(base, "k")
			_, resp, err := c.ListProjects(context.Background(), statusclient.ProjectListOptions{})
			is.True(err != nil)  // an unusable base URL is reported, not panicked on
			is.True(resp == nil) // no answer, no Response
			for _, err := range c.AllInvoices(context.Background(), statusclient.InvoiceListOptions{}) {
				is.True(err != nil) // the iterator yields the same error
			}
		})
	}
}

// TestEmptyIDSendsNothing calls every exported method of *Client that
// takes a string (an id of an item, or of the parent of a list) with "":
// it returns (or yields) an error without a request, since the server
// could only answer 404. Stream's string is no id: "" asks for the events
// from now on.
func TestEmptyIDSendsNothing(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls++ }))
	defer srv.Close()
	c := reflect.ValueOf(statusclient.New(srv.URL, "k"))
	checked := 0
	for i := range c.NumMethod() {
		m := c.Type().Method(i)
		if m.Name == "Stream" || !takesString(m.Type) {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			is := is.New(t)
			before := calls
			err := callAnyhow(t, m.Name, c.Method(i), "")
			is.True(err != nil)     // an empty id is an error
			is.Equal(calls, before) // and sends nothing
		})
		checked++
	}
	is.New(t).True(checked >= 10) // the methods with ids were found
}

// takesString reports whether the function type ft has a string parameter.
func takesString(ft reflect.Type) bool {
	for i := range ft.NumIn() {
		if ft.In(i).Kind() == reflect.String {
			return true
		}
	}
	return false
}
