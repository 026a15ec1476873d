// Package bunstore keeps the status API's data and API key records in
// PostgreSQL, through Bun (github.com/uptrace/bun) and its pgdialect.
//
// A portal brings its own *bun.DB, so the store shares its pool, or opens
// one with Open; it runs Migrate at start-up, then hands New(db) to the
// handler as its store.Store and to auth as its auth.KeyStore. Its tables
// go in a schema of their own, named in every query, beside the portal's:
//
//	db, err := bunstore.Open(ctx, os.Getenv("DATABASE_URL"))
//	...
//	if err := bunstore.Migrate(ctx, db, bunstore.WithSchema("clientstatus")); err != nil { ... }
//	st := bunstore.New(db, bunstore.WithSchema("clientstatus"))
//
// The portal writes through the same Store, in its own transactions when
// it likes: st.WithTx(tx).PutProject(ctx, p) commits or rolls back with the
// portal's other writes in tx.
//
// Every query is scoped by organization and uses Bun's placeholders, never
// text pasted into SQL; every list has an index that starts with the
// organization and follows the list's order, so a page costs the same
// however many rows other organizations have. A page and its total take one
// round trip: the page read in the index's order, up to its limit, and the
// total summed from the table item_counts, which triggers keep (a few rows
// per organization, however many items it has; see selectPage), or, with
// UpdatedSince and for threads, messages and deletions, counted from an
// index alone. Each method runs under a deadline (WithQueryTimeout) and
// the server under statement_timeout (see Open), so a slow or lost
// database answers store.ErrUnavailable promptly.
package bunstore
