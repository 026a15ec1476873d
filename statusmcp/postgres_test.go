package statusmcp_test

import (
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/internal/test/pgtest"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/statusmcp"
)

// TestToolsEqualRoutesOnPostgres runs every tool against its route on
// the PostgreSQL store, in a schema of its own.
func TestToolsEqualRoutesOnPostgres(t *testing.T) {
	db, cs := pgtest.Schema(t, "statusmcp")
	st := bunstore.New(db, cs)
	seed(t, st)
	keys := auth.NewKeys(st)
	t.Cleanup(func() { _ = keys.Close() })
	fs := files.NewMemory()
	fs.Put("mockups.pdf", []byte("hello"))
	fs.Put("a-1.pdf", []byte("%PDF-"))
	h := apitest.Handler(st, keys, nil,
		statusapi.WithFiles(fs),
		statusapi.WithClock(func() time.Time { return now }),
		statusapi.WithMCP(statusmcp.Handler(statusmcp.WithClock(func() time.Time { return now }))))
	r := rig{h: h, keys: mintKeys(t, keys)}
	for _, key := range []string{"a", "p1", "invoices", "sandbox"} {
		t.Run(key, func(t *testing.T) { checkToolsEqualRoutes(t, r, key) })
	}
	t.Run("status_summary", func(t *testing.T) {
		res := call(t, h, r.key("a"), "status_summary", map[string]any{})
		if res.IsError {
			t.Fatalf("status_summary failed: %s", res.Content[0].Text)
		}
	})
}
