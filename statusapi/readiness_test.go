package statusapi_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

func TestReadiness(t *testing.T) {
	dbDown := fmt.Errorf("bunstore: ping: %w: dial tcp 10.0.0.7:5432: connection refused", store.ErrUnavailable)
	st := memstore.New()
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st))
	lim := ratelimit.NewMemory()
	probe := func(method string, logs *bytes.Buffer, ready bool) *httptest.ResponseRecorder {
		t.Helper()
		var s store.Store = st
		if !ready {
			s = pingStore{st, dbDown}
		}
		res := httptest.NewRecorder()
		req := httptest.NewRequest(method, "/readyz", nil)
		req.Header.Set("X-Request-Id", "probe-1")
		statusapi.Readiness(s, keys, lim, slog.New(slog.NewTextHandler(logs, nil))).ServeHTTP(res, req)
		return res
	}

	t.Run("ready", func(t *testing.T) {
		is := is.New(t)
		var logs bytes.Buffer
		res := probe("GET", &logs, true)
		is.Equal(res.Code, 200)
		is.Equal(res.Body.String(), `{"status":"ready"}`+"\n")
		is.Equal(res.Header().Get("Content-Type"), "application/json; charset=utf-8")
		is.Equal(res.Header().Get("Cache-Control"), "no-store")
		is.Equal(res.Header().Get("X-Request-Id"), "probe-1")
		is.Equal(logs.String(), "") // nothing to say
		is.Equal(probe("HEAD", &logs, true).Code, 200)
	})
	t.Run("not ready", func(t *testing.T) {
		is := is.New(t)
		var logs bytes.Buffer
		res := probe("GET", &logs, false)
		is.Equal(res.Code, 503)
		is.Equal(res.Body.String(), `{"status":"unavailable"}`+"\n") // neither the part nor why
		log := logs.String()
		is.True(strings.Contains(log, `level=WARN msg="statusapi: not ready"`))
		is.True(strings.Contains(log, `failed=[store]`))                     // the part
		is.True(strings.Contains(log, "dial tcp 10.0.0.7:5432: connection")) // and why
		is.True(strings.Contains(log, "request_id=probe-1"))
	})
	t.Run("other methods", func(t *testing.T) {
		is := is.New(t)
		var logs bytes.Buffer
		res := probe("POST", &logs, true)
		is.Equal(res.Code, 405)
		is.Equal(res.Header().Get("Allow"), "GET, HEAD")
	})
}

// TestReadinessNotMigrated: a store whose schema is not this version's
// is not ready, with the store's reason in the body, logged once however
// often the probe asks.
func TestReadinessNotMigrated(t *testing.T) {
	is := is.New(t)
	st := memstore.New()
	reason := "the database schema was never migrated: run bunstore.Migrate"
	notMigrated := pingStore{st, fmt.Errorf("bunstore: ping: %w", &store.SchemaError{Reason: reason})}
	var logs bytes.Buffer
	h := statusapi.Readiness(notMigrated, auth.NewKeys(auth.NewMemoryKeyStore(st)), nil, slog.New(slog.NewTextHandler(&logs, nil)))
	for range 3 {
		res := httptest.NewRecorder()
		h.ServeHTTP(res, httptest.NewRequest("GET", "/readyz", nil))
		is.Equal(res.Code, 503)
		is.Equal(res.Body.String(), `{"status":"unavailable","reason":"`+reason+`"}`+"\n")
	}
	is.Equal(strings.Count(logs.String(), reason), 1) // once in the log
}
