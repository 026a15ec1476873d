package statusmcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/store"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// now is the tests' clock: the store's, the handler's and status_summary's.
var now = apitest.Start

// writer is what seed writes with: memstore.Store and bunstore both are.
type writer interface {
	store.Writer
	store.ThreadWriter
}

func at(d time.Duration) *time.Time { t := now.Add(d); return &t }
func ptr[T any](v T) *T             { return &v }

// seed puts the tests' data: organization org_a (enterprise: no limit) with two
// projects, their milestones, deliverables (one in review with a file),
// invoices (open, overdue, paid, a retainer one) and threads (one
// internal, one with an internal message); org_b with one project of its
// own, which org_a's keys must never see.
func seed(t testing.TB, w writer) {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range []store.Organization{
		{ID: "org_a", Name: "Acme", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true},
		{ID: "org_s", Name: "Small", Plan: store.PlanStarter, RetainerActive: true, APIEnabled: true},
		{ID: "org_b", Name: "Bloom", Plan: store.PlanGrowth, RetainerActive: true, APIEnabled: true},
		{ID: "org_off", Name: "Off", Plan: store.PlanStarter, RetainerActive: false, APIEnabled: true},
	} {
		must(w.PutOrganization(ctx, o))
	}
	p1, p2 := "p1", "p2"
	must(w.PutProject(ctx, store.Project{ID: p1, OrgID: "org_a", Name: "Website", Status: store.ProjectInProgress, StartedAt: at(-60 * 24 * time.Hour), DueAt: at(30 * 24 * time.Hour)}))
	must(w.PutProject(ctx, store.Project{ID: p2, OrgID: "org_a", Name: "App", Status: store.ProjectPlanned}))
	must(w.PutProject(ctx, store.Project{ID: "pb", OrgID: "org_b", Name: "Bakery site", Status: store.ProjectInProgress}))
	for _, m := range []store.Milestone{
		{ID: "m1", ProjectID: p1, Name: "Design", Status: store.MilestoneCompleted, DueAt: now.Add(-20 * 24 * time.Hour), CompletedAt: at(-21 * 24 * time.Hour)},
		{ID: "m2", ProjectID: p1, Name: "Build", Status: store.MilestoneInProgress, DueAt: now.Add(-2 * 24 * time.Hour)},
		{ID: "m3", ProjectID: p1, Name: "Launch", Status: store.MilestonePending, DueAt: now.Add(10 * 24 * time.Hour)},
		{ID: "m4", ProjectID: p1, Name: "Review", Status: store.MilestonePending, DueAt: now.Add(20 * 24 * time.Hour)},
		{ID: "m5", ProjectID: p2, Name: "Kickoff", Status: store.MilestonePending, DueAt: now.Add(5 * 24 * time.Hour)},
	} {
		m.OrgID = "org_a"
		must(w.PutMilestone(ctx, m))
	}
	must(w.PutMilestone(ctx, store.Milestone{ID: "mb", OrgID: "org_b", ProjectID: "pb", Name: "Late", Status: store.MilestonePending, DueAt: now.Add(-time.Hour)}))
	for _, d := range []store.Deliverable{
		{ID: "d1", ProjectID: p1, Name: "Mockups", Status: store.DeliverableInReview, FileName: ptr("mockups.pdf"), ContentType: ptr("application/pdf"), SizeBytes: ptr(int64(5)), FileKey: "mockups.pdf", CreatedAt: now.Add(-3 * 24 * time.Hour)},
		{ID: "d2", ProjectID: p1, Name: "Copy", Status: store.DeliverablePending, CreatedAt: now.Add(-2 * 24 * time.Hour)},
		{ID: "d3", ProjectID: p2, Name: "Wireframes", Status: store.DeliverableInReview, CreatedAt: now.Add(-24 * time.Hour)},
	} {
		d.OrgID = "org_a"
		must(w.PutDeliverable(ctx, d))
	}
	must(w.PutDeliverable(ctx, store.Deliverable{ID: "db", OrgID: "org_b", ProjectID: "pb", Name: "Logo", Status: store.DeliverableInReview, CreatedAt: now}))
	for _, i := range []store.Invoice{
		{ID: "i1", Number: "A-1", ProjectID: &p1, Status: store.InvoiceOpen, Currency: "EUR", Total: 10000, AmountDue: 10000, IssuedAt: now.Add(-40 * 24 * time.Hour), DueAt: now.Add(-10 * 24 * time.Hour), DocumentKey: "a-1.pdf"},
		{ID: "i2", Number: "A-2", ProjectID: &p2, Status: store.InvoiceOpen, Currency: "EUR", Total: 5000, AmountDue: 2500, IssuedAt: now.Add(-5 * 24 * time.Hour), DueAt: now.Add(25 * 24 * time.Hour)},
		{ID: "i3", Number: "A-3", Status: store.InvoiceOpen, Currency: "USD", Total: 700, AmountDue: 700, IssuedAt: now.Add(-4 * 24 * time.Hour), DueAt: now.Add(-time.Hour)},
		{ID: "i4", Number: "A-4", ProjectID: &p1, Status: store.InvoicePaid, Currency: "EUR", Total: 900, AmountDue: 0, IssuedAt: now.Add(-90 * 24 * time.Hour), DueAt: now.Add(-60 * 24 * time.Hour), PaidAt: at(-61 * 24 * time.Hour)},
	} {
		i.OrgID = "org_a"
		must(w.PutInvoice(ctx, i))
	}
	must(w.PutInvoice(ctx, store.Invoice{ID: "ib", OrgID: "org_b", Number: "B-1", Status: store.InvoiceOpen, Currency: "EUR", Total: 1, AmountDue: 1, IssuedAt: now, DueAt: now.Add(-time.Hour)}))
	for _, th := range []store.Thread{
		{ID: "t1", ProjectID: &p1, Subject: "Launch date", Status: store.ThreadOpen, CreatedAt: now.Add(-30 * 24 * time.Hour)},
		{ID: "t2", Subject: "Retainer", Status: store.ThreadOpen, CreatedAt: now.Add(-30 * 24 * time.Hour)},
		{ID: "t3", ProjectID: &p1, Subject: "Agency note", Status: store.ThreadOpen, Internal: true, CreatedAt: now.Add(-time.Hour)},
	} {
		th.OrgID = "org_a"
		must(w.PutThread(ctx, th))
	}
	for _, m := range []store.Message{
		{ID: "msg1", ThreadID: "t1", Author: store.Author{Name: "Ana", Side: store.SideAgency}, Body: "Can we move it?", CreatedAt: now.Add(-2 * 24 * time.Hour)},
		{ID: "msg2", ThreadID: "t1", Author: store.Author{Name: "Ben", Side: store.SideClient}, Body: "Yes.", CreatedAt: now.Add(-24 * time.Hour)},
		{ID: "msg3", ThreadID: "t1", Author: store.Author{Name: "Ana", Side: store.SideAgency}, Body: "internal: they are late", Internal: true, CreatedAt: now.Add(-time.Hour)},
		{ID: "msg4", ThreadID: "t2", Author: store.Author{Name: "Ana", Side: store.SideAgency}, Body: "Old news", CreatedAt: now.Add(-20 * 24 * time.Hour)},
		{ID: "msg5", ThreadID: "t3", Author: store.Author{Name: "Ana", Side: store.SideAgency}, Body: "secret", CreatedAt: now.Add(-time.Hour)},
	} {
		m.OrgID = "org_a"
		m.Attachments = []store.Attachment{}
		must(w.PutMessage(ctx, m))
	}
}

// rpc is a JSON-RPC answer of /v1/mcp.
type rpc struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// toolResult is a tools/call result.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// requestID is every test request's X-Request-Id: a tool's error repeats
// the one of its /v1/mcp request.
const requestID = "mcp-test-1"

// post sends body to /v1/mcp on h with key ("" for none).
func post(h http.Handler, key, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/v1/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-Request-Id", requestID)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res := httptest.NewRecorder()
	h.ServeHTTP(res, req)
	return res
}

// call calls tool with args (a JSON object, or raw JSON) and returns its
// result; the test fails on anything but a 200 with a JSON-RPC result.
func call(t testing.TB, h http.Handler, key, tool string, args any) toolResult {
	t.Helper()
	raw, ok := args.(json.RawMessage)
	if !ok {
		raw, _ = json.Marshal(args)
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, tool, raw)
	res := post(h, key, body)
	if res.Code != http.StatusOK {
		t.Fatalf("%s %s: status %d: %s", tool, raw, res.Code, res.Body)
	}
	var r rpc
	if err := json.Unmarshal(res.Body.Bytes(), &r); err != nil || r.Error != nil || r.Result == nil {
		t.Fatalf("%s %s: not a JSON-RPC result: %s", tool, raw, res.Body)
	}
	var out toolResult
	if err := json.Unmarshal(r.Result, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// listedTool is a tool as tools/list describes it.
type listedTool struct {
	Name        string
	InputSchema struct {
		Type       string                    `json:"type"`
		Properties map[string]map[string]any `json:"properties"`
	} `json:"inputSchema"`
	OutputSchema map[string]any `json:"outputSchema"`
	Annotations  struct {
		ReadOnlyHint bool `json:"readOnlyHint"`
	} `json:"annotations"`
}

// toolsList returns the tools key sees, as tools/list describes them.
func toolsList(t testing.TB, h http.Handler, key string) []listedTool {
	t.Helper()
	res := post(h, key, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var r struct {
		Result struct {
			Tools []listedTool `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(res.Body.Bytes(), &r); err != nil {
		t.Fatalf("tools/list: %v: %s", err, res.Body)
	}
	return r.Result.Tools
}

// listTools returns the names of the tools key sees.
func listTools(t testing.TB, h http.Handler, key string) []string {
	t.Helper()
	var names []string
	for _, tl := range toolsList(t, h, key) {
		names = append(names, tl.Name)
	}
	return names
}

// get answers GET target with key on h: the route a tool mirrors.
func get(h http.Handler, key, target string) *httptest.ResponseRecorder {
	res := httptest.NewRecorder()
	h.ServeHTTP(res, apitest.NewRequest(http.MethodGet, target, key, "X-Request-Id", requestID))
	return res
}

// jsonValue decodes b for comparisons that ignore spacing.
func jsonValue(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	return v
}

// errorCode returns the error.code of a failed tool's text.
func errorCode(t testing.TB, r toolResult) string {
	t.Helper()
	if !r.IsError || len(r.Content) != 1 {
		t.Fatalf("want one text of an error, got %+v", r)
	}
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.Content[0].Text), &e); err != nil || e.Error.Message == "" {
		t.Fatalf("the error text is no error envelope: %q", r.Content[0].Text)
	}
	return e.Error.Code
}
