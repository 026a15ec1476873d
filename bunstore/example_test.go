package bunstore_test

import (
	"context"
	"log"
	"os"
	"time"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
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
	cs := bunstore.WithSchema("clientstatus") // the store's tables in a schema of their own
	if err := bunstore.Migrate(ctx, db, cs); err != nil {
		log.Fatal(err)
	}
	st := bunstore.New(db, cs, bunstore.WithQueryTimeout(3*time.Second))

	page, err := st.ListInvoices(ctx, "org_a", store.InvoiceQuery{
		PageRequest: store.PageRequest{Page: 1, Limit: store.DefaultLimit},
		Status:      store.InvoiceOpen,
	})
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("%d of %d open invoices", len(page.Items), page.Total)
}

// A portal writes its own rows and the store's in one transaction, on its
// own pool: both commit, or neither does.
func ExampleStore_WithTx() {
	ctx := context.Background()
	db, err := bunstore.Open(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	st := bunstore.New(db, bunstore.WithSchema("clientstatus"))

	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "UPDATE projects SET title = ? WHERE id = ?", "Site", 42); err != nil {
			return err // the portal's own projects table, in its own schema
		}
		return st.WithTx(tx).PutProject(ctx, store.Project{ID: "42", OrgID: "org_a", Name: "Site", Status: store.ProjectInProgress})
	})
	if err != nil {
		log.Fatal(err)
	}
}
