package memstore_test

import (
	"context"
	"fmt"
	"time"

	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
)

// The portal reads the request log and the usage per key through Go, on
// the store the handler's RequestRecorder writes to (statusapi.WithRequestLog).
func ExampleStore_ListRequestLogs() {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	st := memstore.New(memstore.WithClock(func() time.Time { return now }))
	_ = st.PutOrganization(ctx, store.Organization{ID: "org_a", Plan: store.PlanStarter})
	// What a RequestRecorder appends, in batches.
	_ = st.AppendRequests(ctx, []store.RequestRecord{
		{ID: "req_1", OrgID: "org_a", KeyID: "key_1", Method: "GET", Path: "/v1/invoices", Route: "/v1/invoices",
			Query: []string{"limit"}, Status: 200, Duration: 4 * time.Millisecond, CreatedAt: now.Add(-time.Hour)},
		{ID: "req_2", OrgID: "org_a", KeyID: "key_1", Method: "GET", Path: "/v1/invoices", Route: "/v1/invoices",
			Query: []string{"stauts"}, Status: 400, ErrorCode: "INVALID_PARAMETER", Duration: time.Millisecond, CreatedAt: now.Add(-time.Minute)},
	})

	failed, _ := st.ListRequestLogs(ctx, "org_a", store.RequestLogQuery{
		PageRequest: store.PageRequest{Page: 1, Limit: 20}, Class: 4})
	for _, r := range failed.Items {
		fmt.Println(r.CreatedAt.Format(time.Kitchen), r.Status, r.ErrorCode, r.Route, r.Query)
	}

	u, _ := st.KeyUsage(ctx, "org_a", "key_1")
	today := u.Days[len(u.Days)-1]
	fmt.Println(len(u.Days), "days; today", today.Day.Format(time.DateOnly), today.Requests, "requests", today.Errors, "errors")
	fmt.Println("last used", u.LastUsedAt.Format(time.RFC3339))
	// Output:
	// 9:29AM 400 INVALID_PARAMETER /v1/invoices [stauts]
	// 30 days; today 2026-03-01 2 requests 1 errors
	// last used 2026-03-01T09:29:00Z
}
