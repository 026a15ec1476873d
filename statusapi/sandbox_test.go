package statusapi_test

import (
	"context"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/store"
)

// TestUnseededSandboxIsLogged: a sandbox key whose sandbox was never
// seeded reads empty lists, and the handler says once, at Warn, which
// organization's sandbox is empty; a seeded sandbox says nothing.
func TestUnseededSandboxIsLogged(t *testing.T) {
	is := is.New(t)
	a := apitest.New(t)
	a.Org("org_a", store.PlanEnterprise)
	a.Org("org_b", store.PlanEnterprise)
	a.Org(auth.SandboxOrgID("org_b"), store.PlanEnterprise) // org_b's is seeded
	is.NoErr(a.Store.PutProject(context.Background(), store.Project{ID: "p1", OrgID: auth.SandboxOrgID("org_b"), Name: "Demo", Status: store.ProjectInProgress}))
	for _, org := range []string{"org_a", "org_b"} {
		key, _, err := a.Keys.MintSandbox(context.Background(), org, "sb", nil)
		is.NoErr(err)
		a.SetKey(org, key)
	}
	for range 3 {
		res := a.Do("GET", "/v1/projects", "org_a")
		is.Equal(res.Code, 200)
		is.True(strings.Contains(res.Body.String(), `"total":0`)) // empty
		is.Equal(a.Do("GET", "/v1/projects", "org_b").Code, 200)
	}
	logs := a.Logs.String()
	is.Equal(strings.Count(logs, "never seeded?"), 1)    // once
	is.True(strings.Contains(logs, "level=WARN"))        // as a warning
	is.True(strings.Contains(logs, "org=org_a~sandbox")) // naming it
	is.True(!strings.Contains(logs, "org_b~sandbox"))    // not the seeded one
	is.True(!strings.Contains(logs, a.Key("org_a")))     // never the key
}
