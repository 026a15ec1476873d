package bunstore_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/auth/authtest"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/store"
)

// TestKeyStoreWithSchema runs the key store's suite on a store in a schema
// of its own, named in every query (see inOwnSchema).
func TestKeyStoreWithSchema(t *testing.T) {
	t.Parallel()
	authtest.RunKeyStore(t, func(t *testing.T) (auth.KeyStore, func(store.Organization)) {
		st := inOwnSchema(t)
		return st, func(o store.Organization) {
			if err := st.PutOrganization(ctx, o); err != nil {
				t.Fatalf("put organization: %v", err)
			}
		}
	})
}

func TestKeyStoreConformance(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	dbs := make(map[auth.KeyStore]*bun.DB)
	open := func(t *testing.T) (auth.KeyStore, func(store.Organization)) {
		db := migrated(t)
		st := bunstore.New(db)
		mu.Lock()
		dbs[st] = db
		mu.Unlock()
		put := func(o store.Organization) {
			if err := st.PutOrganization(ctx, o); err != nil {
				t.Fatalf("put organization: %v", err)
			}
		}
		return st, put
	}
	authtest.RunKeyStore(t, open, authtest.WithDump(func(t *testing.T, ks auth.KeyStore) []byte {
		mu.Lock()
		db := dbs[ks]
		mu.Unlock()
		return dumpSchema(t, db)
	}))
}

// dumpSchema returns every row of every table of db's schema, as JSON
// lines.
func dumpSchema(t *testing.T, db *bun.DB) []byte {
	t.Helper()
	var tables []string
	err := db.NewSelect().TableExpr("information_schema.tables").
		Column("table_name").
		Where("table_schema = current_schema()").
		Scan(ctx, &tables)
	if err != nil {
		t.Fatalf("list tables: %v", err)
	}
	var dump bytes.Buffer
	for _, table := range tables {
		var rows []string
		err := db.NewSelect().TableExpr("? AS t", bun.Ident(table)).ColumnExpr("row_to_json(t)::text").Scan(ctx, &rows)
		if err != nil {
			t.Fatalf("dump %s: %v", table, err)
		}
		for _, r := range rows {
			dump.WriteString(table + " " + r + "\n")
		}
	}
	return dump.Bytes()
}
