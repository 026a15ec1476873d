package main

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/testenv"
	"github.com/clientstatus/clientstatus/store"
)

// TestRequestLogFlushedOnShutdown makes a 400 on a server on PostgreSQL
// and stops it at once, before its recorder's interval: the shutdown
// writes the request, which the database then holds and the next server
// lists.
func TestRequestLogFlushedOnShutdown(t *testing.T) {
	is := is.New(t)
	dsn := testSchema(t, testenv.PostgresURL(t))
	t.Run("first server", func(t *testing.T) {
		s := startServer(t, nil, "-data", contractFile, "-database-url", dsn)
		res := call(t, "GET", s.url+"/v1/invoices?limit=1000", "key-acme-1")
		is.Equal(res.status, 400)
	}) // stopped here

	ctx := context.Background()
	db, err := bunstore.Open(ctx, dsn)
	is.NoErr(err)
	defer db.Close()
	p, err := bunstore.New(db).ListRequestLogs(ctx, "org_a", store.RequestLogQuery{PageRequest: store.PageRequest{Page: 1, Limit: 10}})
	is.NoErr(err)
	is.Equal(p.Total, 1) // written on shutdown
	is.Equal(p.Items[0].Route, "/v1/invoices")
	is.Equal(p.Items[0].Query, []string{"limit"})

	s := startServer(t, nil, "-data", contractFile, "-database-url", dsn)
	res := call(t, "GET", s.url+"/v1/request_logs?status=4xx", "key-acme-1")
	is.Equal(res.status, 200)
	_, _, total := res.meta(t)
	is.Equal(total, 1) // another server on the same database lists it
}
