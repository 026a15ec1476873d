package statusclient_test

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/store"
)

// TestRealHandlerRequestLogs reads the request log of a real handler that
// records its requests: a 400 made through the client comes back with its
// route, error code and the names of its query parameters.
func TestRealHandlerRequestLogs(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	api := apitest.New(t)
	rec := statusapi.NewRequestRecorder(api.Store)
	t.Cleanup(func() { _ = rec.Close(ctx) })
	srv := api.Server("/api", nil, statusapi.WithRequestLog(rec))
	must(t, api.Store.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "A", Plan: store.PlanGrowth, RetainerActive: true, APIEnabled: true}))
	key, kr, err := api.Keys.Mint(ctx, "org_a", "test", nil)
	must(t, err)
	c := statusclient.New(srv.URL+"/api/v1", key)

	_, _, err = c.ListInvoices(ctx, statusclient.InvoiceListOptions{Status: "nope"})
	is.Equal(statusclient.ErrorCodeOf(err), statusclient.CodeInvalidParameter) // the 400 to find
	is.NoErr(rec.Flush(ctx))

	logs, resp, err := c.RequestLogs(ctx, statusclient.RequestLogListOptions{Status: "4xx"})
	is.NoErr(err)
	is.Equal(resp.Meta.Total, 1)
	got := logs[0]
	is.Equal(got.Route, "/v1/invoices")
	is.Equal(got.Path, "/v1/invoices") // relative to the mount point
	is.Equal(got.Status, 400)
	is.Equal(*got.ErrorCode, statusclient.CodeInvalidParameter)
	is.Equal(got.Query, []string{"status"}) // the name, not "nope"
	is.Equal(*got.KeyID, kr.ID)
	is.True(!got.CreatedAt.IsZero())

	_, _, err = c.RequestLogs(ctx, statusclient.RequestLogListOptions{Status: "4XX"})
	is.Equal(statusclient.ErrorCodeOf(err), statusclient.CodeInvalidParameter) // refused, naming status

	n := 0
	for _, err := range c.AllRequestLogs(ctx, statusclient.RequestLogListOptions{}) {
		is.NoErr(err)
		n++
	}
	is.Equal(n, 1) // the log's own requests are not logged
}
