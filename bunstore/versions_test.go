package bunstore_test

import (
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
)

// TestDataVersionTriggers checks what storetest cannot: that the data
// version is the triggers', so writes made with plain SQL move it too, that
// a batch moves it once (one statement, one row of data_version_log), that an
// organization renamed moves both ids, and that a write in a transaction
// moves it only for those who see the write, when it commits.
func TestDataVersionTriggers(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := migrated(t)
	st := bunstore.New(db)
	for _, id := range []string{"org_a", "org_b", "org_c"} {
		is.NoErr(st.PutOrganization(ctx, store.Organization{ID: id, Plan: store.PlanGrowth}))
	}
	is.NoErr(st.PutProject(ctx, store.Project{ID: "p1", OrgID: "org_a", Status: store.ProjectPlanned}))
	version := func(org string) int64 {
		t.Helper()
		v, err := st.DataVersion(ctx, org)
		is.NoErr(err) // reading the data version
		return v
	}

	is.Equal(version("org_none"), int64(0))  // an organization never written has 0
	is.Equal(version("org_a\x00"), int64(0)) // and so has an id PostgreSQL cannot hold, without a query

	before, b := version("org_a"), version("org_b")
	is.NoErr(st.PutInvoices(ctx, invoicesOf("i", 500)))
	batch := version("org_a")
	is.Equal(batch, before+1)     // a batch of 500 is one statement, which logs one row
	is.Equal(version("org_b"), b) // another organization's stays
	is.NoErr(st.PutInvoices(ctx, invoicesOf("i", 500)))
	is.Equal(version("org_a"), batch) // a put that changes nothing writes no row, and moves nothing

	_, err := db.ExecContext(ctx, "UPDATE invoices SET amount_due = 0 WHERE org_id = 'org_a' AND id = 'i3'")
	is.NoErr(err)
	updated := version("org_a")
	is.True(updated > batch)      // an UPDATE in plain SQL moves it
	is.Equal(version("org_b"), b) // and only its organization's

	_, err = db.ExecContext(ctx, "DELETE FROM invoices WHERE org_id = 'org_a' AND id = 'i4'")
	is.NoErr(err)
	deleted := version("org_a")
	is.True(deleted > updated) // so does a DELETE

	_, err = db.ExecContext(ctx, "DELETE FROM deletions WHERE org_id = 'org_a'")
	is.NoErr(err)
	is.True(version("org_a") > deleted) // and one of the deletion records, which ListDeletions reads

	c := version("org_c")
	_, err = db.ExecContext(ctx, "UPDATE organizations SET id = 'org_d' WHERE id = 'org_c'")
	is.NoErr(err)
	is.True(version("org_c") > c) // an update moves the organization its row leaves
	is.True(version("org_d") > 0) // and the one it goes to, which had none
	is.Equal(version("org_b"), b) // and no other

	a := version("org_a")
	_, err = db.ExecContext(ctx, "TRUNCATE deletions")
	is.NoErr(err)
	is.True(version("org_a") > a) // a TRUNCATE, which names no rows, moves every organization
	is.True(version("org_b") > b)

	// In a transaction, the version moves with the data: not before the
	// commit for others, at once for the transaction itself.
	a = version("org_a")
	tx, err := db.BeginTx(ctx, nil)
	is.NoErr(err)
	defer tx.Rollback()
	in := st.WithTx(tx)
	is.NoErr(in.PutInvoice(ctx, invoicesOf("j", 1)[0]))
	inTx, err := in.DataVersion(ctx, "org_a")
	is.NoErr(err)
	is.True(inTx > a)             // the transaction sees its write's version
	is.Equal(version("org_a"), a) // others do not, before it commits
	is.NoErr(tx.Commit())
	is.Equal(version("org_a"), inTx) // and then see that one
}
