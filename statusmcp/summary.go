package statusmcp

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/statusapi"
)

// summary is status_summary's answer: the caller's view at a glance.
type summary struct {
	AsOf                 string           `json:"asOf"`
	Projects             []summaryProject `json:"projects"`
	DeliverablesInReview []reviewItem     `json:"deliverablesInReview"`
	Invoices             invoiceTotals    `json:"invoices"`
	ActiveThreads        []activeThread   `json:"activeThreads"`
}

type summaryProject struct {
	ID                string         `json:"id"`
	Name              string         `json:"name"`
	Status            string         `json:"status"`
	DueAt             *string        `json:"dueAt"`
	NextMilestone     *milestoneRef  `json:"nextMilestone"`
	OverdueMilestones []milestoneRef `json:"overdueMilestones"`
}

type milestoneRef struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	DueAt string `json:"dueAt"`
}

type reviewItem struct {
	ID        string `json:"id"`
	ProjectID string `json:"projectId"`
	Name      string `json:"name"`
	UpdatedAt string `json:"updatedAt"`
}

type invoiceTotals struct {
	Open      int           `json:"open"`
	Overdue   int           `json:"overdue"`
	AmountDue []moneyAmount `json:"amountDue"`
}

type moneyAmount struct {
	Currency string `json:"currency"`
	Amount   int64  `json:"amount"`
}

type activeThread struct {
	ID            string  `json:"id"`
	ProjectID     *string `json:"projectId"`
	Subject       string  `json:"subject"`
	LastMessageAt string  `json:"lastMessageAt"`
}

// ActiveThreadWindow is how far back a thread's last visible message
// makes it active in status_summary.
const ActiveThreadWindow = 7 * 24 * time.Hour

// summaryTool is status_summary: no argument, no scope of its own; each
// part holds what the caller's key may read (a part whose scope it lacks
// is empty), read through the API's routes.
func summaryTool(now func() time.Time) tool {
	// As deep as a route tool's output schema (see outputSchema): the
	// keys of the answer and of its items, typed.
	str, nullStr, integer := typed("string"), typed("string", "null"), typed("integer")
	output := map[string]any{"type": "object", "required": []any{"asOf", "projects", "deliverablesInReview", "invoices", "activeThreads"},
		"properties": map[string]any{
			"asOf": str,
			"projects": array(object(map[string]any{"id": str, "name": str, "status": str, "dueAt": nullStr,
				"nextMilestone": typed("object", "null"), "overdueMilestones": typed("array")})),
			"deliverablesInReview": array(object(map[string]any{"id": str, "projectId": str, "name": str, "updatedAt": str})),
			"invoices":             object(map[string]any{"open": integer, "overdue": integer, "amountDue": typed("array")}),
			"activeThreads":        array(object(map[string]any{"id": str, "projectId": nullStr, "subject": str, "lastMessageAt": str})),
		}}
	def := &mcp.Tool{
		Name:  "status_summary",
		Title: "Status at a glance",
		Description: "The caller's view at a glance, as of now (asOf), in one call: each project with its next milestone and its overdue ones, " +
			"deliverables in review, open invoices (how many overdue, amount due per currency), threads active in the last 7 days.",
		InputSchema:  mustJSON(map[string]any{"type": "object", "properties": map[string]any{}}),
		OutputSchema: mustJSON(output),
		Annotations:  readOnly(),
	}
	return tool{def: def, call: func(ctx context.Context, c *statusapi.MCPCaller, args json.RawMessage) *mcp.CallToolResult {
		var in map[string]json.RawMessage
		if len(args) > 0 && string(args) != "null" {
			if err := json.Unmarshal(args, &in); err != nil {
				return errorResult(badParam("", "the arguments must be a JSON object"))
			}
		}
		for name := range in {
			return errorResult(badParam(name, "unknown parameter %s: status_summary takes none", name))
		}
		s, body := summarize(ctx, c, now().UTC().Truncate(time.Second))
		if body != nil {
			return errorBodyResult(body)
		}
		return jsonResult(mustJSON(s))
	}}
}

// typed is a schema of only a JSON type, or of several.
func typed(types ...any) map[string]any {
	if len(types) == 1 {
		return map[string]any{"type": types[0]}
	}
	return map[string]any{"type": types}
}

func array(items map[string]any) map[string]any {
	return map[string]any{"type": "array", "items": items}
}

func object(props map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": props}
}

// summarize reads the parts of the summary through the routes, or
// returns the error body of the first route that failed.
func summarize(ctx context.Context, c *statusapi.MCPCaller, asOf time.Time) (summary, []byte) {
	s := summary{
		AsOf: asOf.Format(time.RFC3339), Projects: []summaryProject{}, DeliverablesInReview: []reviewItem{},
		Invoices: invoiceTotals{AmountDue: []moneyAmount{}}, ActiveThreads: []activeThread{},
	}
	w := &walker{ctx: ctx, c: c}
	allows := c.Principal.Allows
	if allows(auth.ScopeProjects) {
		projects, err := walk[projectItem](w, pathOf["listProjects"], nil, nil)
		if err != nil {
			return s, err
		}
		milestones, err := w.milestones()
		if err != nil {
			return s, err
		}
		for _, p := range projects {
			sp := summaryProject{ID: p.ID, Name: p.Name, Status: p.Status, DueAt: p.DueAt, OverdueMilestones: []milestoneRef{}}
			for _, m := range milestones[p.ID] { // in dueAt order, then id
				due, err := time.Parse(time.RFC3339, m.DueAt)
				if m.Status == "completed" || err != nil {
					continue
				}
				ref := milestoneRef{ID: m.ID, Name: m.Name, DueAt: m.DueAt}
				if due.Before(asOf) {
					sp.OverdueMilestones = append(sp.OverdueMilestones, ref)
				} else if sp.NextMilestone == nil {
					sp.NextMilestone = &ref
				}
			}
			s.Projects = append(s.Projects, sp)
		}
	}
	if allows(auth.ScopeDeliverables) {
		items, err := walk[reviewItem](w, pathOf["listDeliverables"], url.Values{"status": {"in_review"}}, nil)
		if err != nil {
			return s, err
		}
		s.DeliverablesInReview = append(s.DeliverablesInReview, items...)
	}
	if allows(auth.ScopeInvoices) {
		invoices, err := walk[invoiceItem](w, pathOf["listInvoices"], url.Values{"status": {"open"}}, nil)
		if err != nil {
			return s, err
		}
		sums := map[string]int64{}
		for _, inv := range invoices {
			s.Invoices.Open++
			if inv.DueAt != nil {
				if due, err := time.Parse(time.RFC3339, *inv.DueAt); err == nil && due.Before(asOf) {
					s.Invoices.Overdue++
				}
			}
			sums[inv.Currency] += inv.AmountDue
		}
		for _, cur := range slices.Sorted(maps.Keys(sums)) {
			s.Invoices.AmountDue = append(s.Invoices.AmountDue, moneyAmount{Currency: cur, Amount: sums[cur]})
		}
	}
	if allows(auth.ScopeThreads) {
		since := asOf.Add(-ActiveThreadWindow)
		// Threads come by lastMessageAt descending, nulls last: the walk
		// stops at the first page that reaches past the window.
		done := func(threads []activeThreadItem) bool {
			last := threads[len(threads)-1].LastMessageAt
			at, err := time.Parse(time.RFC3339, deref(last))
			return last == nil || err != nil || at.Before(since)
		}
		threads, err := walk[activeThreadItem](w, pathOf["listThreads"], nil, done)
		if err != nil {
			return s, err
		}
		for _, t := range threads {
			at, err := time.Parse(time.RFC3339, deref(t.LastMessageAt))
			if t.LastMessageAt == nil || err != nil || at.Before(since) {
				continue
			}
			s.ActiveThreads = append(s.ActiveThreads, activeThread{ID: t.ID, ProjectID: t.ProjectID, Subject: t.Subject, LastMessageAt: *t.LastMessageAt})
		}
	}
	return s, nil
}

// The fields of the routes' items that the summary reads.
type (
	projectItem struct {
		ID, Name, Status string
		DueAt            *string
	}
	milestoneItem struct {
		ID, ProjectID, Name, Status, DueAt string
	}
	invoiceItem struct {
		Currency  string
		AmountDue int64
		DueAt     *string
	}
	activeThreadItem struct {
		ID            string
		ProjectID     *string
		Subject       string
		LastMessageAt *string
	}
)

// walker reads lists through the routes, 100 items a page, and counts
// the pages it read (the routes' store queries).
type walker struct {
	ctx   context.Context
	c     *statusapi.MCPCaller
	mu    sync.Mutex
	pages int
}

// walk returns every item of the list at path with query, 100 a page,
// until a page is short or stop, given the items so far, says so; or the
// error body of the route.
func walk[T any](w *walker, path string, query url.Values, stop func([]T) bool) ([]T, []byte) {
	var all []T
	for page := 1; ; page++ {
		q := url.Values{"limit": {"100"}, "page": {strconv.Itoa(page)}}
		for k, v := range query {
			q[k] = v
		}
		status, body := w.c.Get(w.ctx, path, q)
		w.mu.Lock()
		w.pages++
		w.mu.Unlock()
		if status != http.StatusOK {
			return nil, body
		}
		var res struct {
			Data []T
			Meta struct{ Total int }
		}
		if err := json.Unmarshal(body, &res); err != nil {
			return nil, internalError()
		}
		all = append(all, res.Data...)
		if len(res.Data) < 100 || page*100 >= res.Meta.Total || (stop != nil && stop(all)) {
			return all, nil
		}
	}
}

// milestones returns the organization's milestones by project, each in
// dueAt order, from GET /v1/milestones.
func (w *walker) milestones() (map[string][]milestoneItem, []byte) {
	all, err := walk[milestoneItem](w, pathOf["listAllMilestones"], nil, nil)
	if err != nil {
		return nil, err
	}
	out := map[string][]milestoneItem{}
	for _, m := range all {
		out[m.ProjectID] = append(out[m.ProjectID], m)
	}
	return out, nil
}

func internalError() []byte {
	return []byte(`{"error":{"code":"INTERNAL","message":"internal error"}}`)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
