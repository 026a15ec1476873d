package statusmcp

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
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
	def := &mcp.Tool{
		Name:  "status_summary",
		Title: "Status at a glance",
		Description: "The caller's view at a glance, as of now (asOf), in one call: each project with its next milestone and its overdue ones, " +
			"deliverables in review, open invoices (how many overdue, amount due per currency), threads active in the last 7 days.",
		InputSchema:  mustJSON(map[string]any{"type": "object", "properties": map[string]any{}}),
		OutputSchema: mustJSON(outputSchema(reflect.TypeFor[summary]())),
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

// summarize reads the parts of the summary through the routes, or
// returns the error body of the first route that failed.
func summarize(ctx context.Context, c *statusapi.MCPCaller, asOf time.Time) (summary, []byte) {
	s := summary{
		AsOf: asOf.Format(time.RFC3339), Projects: []summaryProject{}, DeliverablesInReview: []reviewItem{},
		Invoices: invoiceTotals{AmountDue: []moneyAmount{}}, ActiveThreads: []activeThread{},
	}
	allows := c.Principal.Allows
	if allows(auth.ScopeProjects) {
		projects, err := walk[summaryProject](ctx, c, pathOf["listProjects"], nil, nil)
		if err != nil {
			return s, err
		}
		milestones, err := walk[milestoneItem](ctx, c, pathOf["listAllMilestones"], nil, nil)
		if err != nil {
			return s, err
		}
		byProject := map[string][]milestoneItem{}
		for _, m := range milestones {
			byProject[m.ProjectID] = append(byProject[m.ProjectID], m)
		}
		for _, sp := range projects {
			sp.OverdueMilestones = []milestoneRef{}
			for _, m := range byProject[sp.ID] { // in dueAt order, then id
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
		items, err := walk[reviewItem](ctx, c, pathOf["listDeliverables"], url.Values{"status": {"in_review"}}, nil)
		if err != nil {
			return s, err
		}
		s.DeliverablesInReview = append(s.DeliverablesInReview, items...)
	}
	if allows(auth.ScopeInvoices) {
		invoices, err := walk[invoiceItem](ctx, c, pathOf["listInvoices"], url.Values{"status": {"open"}}, nil)
		if err != nil {
			return s, err
		}
		sums := map[string]int64{}
		for _, inv := range invoices {
			s.Invoices.Open++
			if due, err := time.Parse(time.RFC3339, inv.DueAt); err == nil && due.Before(asOf) {
				s.Invoices.Overdue++
			}
			sums[inv.Currency] += inv.AmountDue
		}
		for _, cur := range slices.Sorted(maps.Keys(sums)) {
			s.Invoices.AmountDue = append(s.Invoices.AmountDue, moneyAmount{Currency: cur, Amount: sums[cur]})
		}
	}
	if allows(auth.ScopeThreads) {
		active := func(t activeThreadItem) bool {
			if t.LastMessageAt == nil {
				return false
			}
			at, err := time.Parse(time.RFC3339, *t.LastMessageAt)
			return err == nil && !at.Before(asOf.Add(-ActiveThreadWindow))
		}
		// Threads come by lastMessageAt descending, nulls last: the walk
		// stops at the first page that reaches past the window.
		done := func(threads []activeThreadItem) bool { return !active(threads[len(threads)-1]) }
		threads, err := walk[activeThreadItem](ctx, c, pathOf["listThreads"], nil, done)
		if err != nil {
			return s, err
		}
		for _, t := range threads {
			if active(t) {
				s.ActiveThreads = append(s.ActiveThreads, activeThread{ID: t.ID, ProjectID: t.ProjectID, Subject: t.Subject, LastMessageAt: *t.LastMessageAt})
			}
		}
	}
	return s, nil
}

// The fields of the routes' items that the summary reads.
type (
	milestoneItem struct {
		ID, ProjectID, Name, Status, DueAt string
	}
	invoiceItem struct {
		Currency, DueAt string
		AmountDue       int64
	}
	activeThreadItem struct {
		ID            string
		ProjectID     *string
		Subject       string
		LastMessageAt *string
	}
)

// pathOf is each route's pattern by its operation's id
// (statusapi.Operations), for the lists status_summary reads.
var pathOf = func() map[string]string {
	out := map[string]string{}
	for _, op := range statusapi.Operations() {
		out[op.ID] = op.Path
	}
	return out
}()

// walk returns every item of the list at path with query, read for c,
// 100 a page, until a page is short or stop, given the items so far, says
// so; or the error body of the route.
func walk[T any](ctx context.Context, c *statusapi.MCPCaller, path string, query url.Values, stop func([]T) bool) ([]T, []byte) {
	var all []T
	for page := 1; ; page++ {
		q := url.Values{"limit": {"100"}, "page": {strconv.Itoa(page)}}
		maps.Copy(q, query)
		status, body := c.Get(ctx, path, q)
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

func internalError() []byte {
	return []byte(`{"error":{"code":"INTERNAL","message":"internal error"}}`)
}
