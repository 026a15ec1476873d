package statusapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// TestRequestLogAcrossReplicas runs two handlers, each with its own pool
// and recorder, on one PostgreSQL schema: each lists the requests of both,
// and the key's usage counts both; the replicas prune at once without
// error.
func TestRequestLogAcrossReplicas(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	db1, _, cs := migratedSchema(t, "statusapi_reqlog")
	db2 := openDatabase(t)
	st1, st2 := bunstore.New(db1, cs), bunstore.New(db2, cs)
	is.NoErr(st1.PutOrganization(ctx, store.Organization{ID: "org_a", Name: "A", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}))
	keys1, keys2 := auth.NewKeys(st1), auth.NewKeys(st2)
	t.Cleanup(func() { _ = keys1.Close(); _ = keys2.Close() })
	key, kr, err := keys1.Mint(ctx, "org_a", "replicas", nil)
	is.NoErr(err)
	rec1, rec2 := statusapi.NewRequestRecorder(st1), statusapi.NewRequestRecorder(st2)
	replicas := []http.Handler{
		apitest.Handler(st1, keys1, nil, statusapi.WithRequestLog(rec1)),
		apitest.Handler(st2, keys2, nil, statusapi.WithRequestLog(rec2)),
	}
	get := func(h http.Handler, target, id string) *httptest.ResponseRecorder {
		t.Helper()
		return serveWith(t, h, apitest.NewRequest("GET", target, key, "X-Request-Id", id))
	}
	is.Equal(get(replicas[0], "/v1/projects", "on-replica-1").Code, 200)
	is.Equal(get(replicas[1], "/v1/projects?page=0", "on-replica-2").Code, 400)
	is.NoErr(rec1.Close(ctx)) // as on shutdown: the last requests are written
	is.NoErr(rec2.Close(ctx))

	for i, h := range replicas {
		items, total := requestLogsOf(t, get(h, "/v1/request_logs", "listing"))
		is.Equal(total, 2) // both replicas' requests, on either
		ids := map[string]int{}
		for _, it := range items {
			ids[it.ID] = it.Status
		}
		is.Equal(ids, map[string]int{"on-replica-1": 200, "on-replica-2": 400}) // replica i+1 lists both
		_ = i
	}
	u, err := st2.KeyUsage(ctx, "org_a", kr.ID)
	is.NoErr(err)
	today := u.Days[len(u.Days)-1]
	is.Equal(today.Requests, int64(2))
	is.Equal(today.Errors, int64(1))
	is.True(u.LastUsedAt != nil)

	var wg sync.WaitGroup
	for _, st := range []*bunstore.Store{st1, st2} {
		wg.Go(func() {
			_, err := st.PruneRequestLogs(ctx)
			is.NoErr(err) // replicas prune at once
		})
	}
	wg.Wait()
}
