package clientstatus_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/build/apirecord"

	// The recorded packages, imported so that go test's cache runs the test
	// again whenever one of them changes (the go list it runs is a child
	// process, whose reads the cache does not see). TestAPIRecord fails
	// when this list and the recorded packages differ.
	_ "github.com/clientstatus/clientstatus/auth"
	_ "github.com/clientstatus/clientstatus/auth/authtest"
	_ "github.com/clientstatus/clientstatus/auth/jwtauth"
	_ "github.com/clientstatus/clientstatus/auth/redisinvalidate"
	_ "github.com/clientstatus/clientstatus/bunstore"
	_ "github.com/clientstatus/clientstatus/devsettings"
	_ "github.com/clientstatus/clientstatus/envelope"
	_ "github.com/clientstatus/clientstatus/files"
	_ "github.com/clientstatus/clientstatus/memstore"
	_ "github.com/clientstatus/clientstatus/openapi"
	_ "github.com/clientstatus/clientstatus/option"
	_ "github.com/clientstatus/clientstatus/otelstatus"
	_ "github.com/clientstatus/clientstatus/ratelimit"
	_ "github.com/clientstatus/clientstatus/ratelimit/ratelimittest"
	_ "github.com/clientstatus/clientstatus/ratelimit/redislimit"
	_ "github.com/clientstatus/clientstatus/sandbox"
	_ "github.com/clientstatus/clientstatus/statusapi"
	_ "github.com/clientstatus/clientstatus/statusclient"
	_ "github.com/clientstatus/clientstatus/statusmcp"
	_ "github.com/clientstatus/clientstatus/store"
	_ "github.com/clientstatus/clientstatus/storetest"
	_ "github.com/clientstatus/clientstatus/webhook"
)

// recorded are the packages imported above, the root one aside.
var recorded = []string{
	"auth", "auth/authtest", "auth/jwtauth", "auth/redisinvalidate", "bunstore", "devsettings", "envelope",
	"files", "memstore", "openapi", "option", "otelstatus", "ratelimit", "ratelimit/ratelimittest",
	"ratelimit/redislimit", "sandbox", "statusapi", "statusclient", "statusmcp", "store",
	"storetest", "webhook",
}

// TestAPIRecord fails when the exported Go API differs from api/v1.txt: an
// addition asks for go generate, a removal or a change is breaking unless
// CHANGELOG.md records it under a new major version.
func TestAPIRecord(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH to build the packages' export data")
	}
	is := is.New(t)
	pkgs, err := apirecord.Packages(".")
	is.NoErr(err)
	want := []string{apirecord.Module}
	for _, p := range recorded {
		want = append(want, apirecord.Module+"/"+p)
	}
	is.Equal(pkgs, want) // the recorded packages are the blank imports of this file

	current, err := apirecord.Record(".", pkgs)
	is.NoErr(err)
	file, err := os.ReadFile(apirecord.File)
	is.NoErr(err)
	changelog, err := os.ReadFile("CHANGELOG.md")
	is.NoErr(err)
	if err := apirecord.Check(apirecord.Parse(file), current, string(changelog)); err != nil {
		t.Fatal(err)
	}
}
