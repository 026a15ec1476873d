package bunstore_test

import (
	"context"
	"log"
	"os"
	"time"

	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/store/bunstore"
)

// A portal opens its database, migrates it at start-up and serves from it.
// (It needs a PostgreSQL, so it is compiled but not run by go test.)
func Example() {
	ctx := context.Background()
	db, err := bunstore.Open(ctx, os.Getenv("DATABASE_URL"), bunstore.WithStatementTimeout(5*time.Second))
	if err != nil {
		log.Fatal(err) // wraps store.ErrUnavailable when the database cannot be reached
	}
	defer db.Close()
	if err := bunstore.Migrate(ctx, db); err != nil {
		log.Fatal(err)
	}
	st := bunstore.New(db, bunstore.WithQueryTimeout(3*time.Second))

	page, err := st.ListInvoices(ctx, "org_a", store.InvoiceQuery{
		PageRequest: store.PageRequest{Page: 1, Limit: store.DefaultLimit},
		Status:      store.InvoiceOpen,
	})
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("%d of %d open invoices", len(page.Items), page.Total)
}
