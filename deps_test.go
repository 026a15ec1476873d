package clientstatus_test

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	// The packages of stdlibOnly, imported so that go test's cache runs
	// the test again whenever they, or anything they import, change: the
	// go list it runs is a child process, whose reads the cache does not
	// see.
	_ "github.com/clientstatus/clientstatus/auth"
	_ "github.com/clientstatus/clientstatus/envelope"
	_ "github.com/clientstatus/clientstatus/memstore"
	_ "github.com/clientstatus/clientstatus/option"
	_ "github.com/clientstatus/clientstatus/ratelimit"
	_ "github.com/clientstatus/clientstatus/statusapi"
	_ "github.com/clientstatus/clientstatus/store"
)

// module is this module's path: its packages may import each other.
const module = "github.com/clientstatus/clientstatus"

// stdlibOnly lists the packages that import nothing but the standard
// library and this module, so that an embedder who uses them links no
// third-party code. To add one, add a row and a blank import above.
var stdlibOnly = []struct {
	pkg, why string
}{
	{"./auth", "API keys, the resolver cache; JWTs live in auth/jwtauth"},
	{"./store", "the domain types every layer shares"},
	{"./ratelimit", "the Limiter interface and the in-memory limiter; Redis lives in ratelimit/redislimit"},
	{"./statusapi", "the http.Handler, with auth, ratelimit and store"},
	{"./envelope", "the JSON envelope and the error catalogue"},
	{"./option", "the options policy and its error, imported by every package with options"},
}

// TestStdlibOnlyPackages fails when a package of stdlibOnly, or anything it
// imports, imports a package outside the standard library and this module.
// `go list -deps` finds them; `go mod why -m <module>` says which import
// brought one in.
func TestStdlibOnlyPackages(t *testing.T) {
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to list the packages' dependencies")
	}
	// The check must see a dependency where there is one: jwtauth has one.
	if deps := outside(t, gotool, "./auth/jwtauth"); !slices.Contains(deps, "github.com/golang-jwt/jwt/v5") {
		t.Fatalf("go list found no third-party import in ./auth/jwtauth (got %q): the check is broken", deps)
	}
	for _, tt := range stdlibOnly {
		t.Run(tt.pkg, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			is.Equal(outside(t, gotool, tt.pkg), []string(nil)) // packages outside the standard library and this module
		})
	}
}

// TestStoreImportsStandardLibraryOnly fails when package store imports
// anything but the standard library, of this module included: the stores
// (memstore, bunstore) and the suite (storetest) import store, never the
// other way round.
func TestStoreImportsStandardLibraryOnly(t *testing.T) {
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to list the package's dependencies")
	}
	is := is.New(t)
	// The check must see this module's packages where there are some.
	is.True(slices.Contains(nonStandard(t, gotool, "./memstore"), module+"/store")) // the check is broken
	is.Equal(nonStandard(t, gotool, "./store"), []string{module + "/store"})        // packages outside the standard library
}

// outside returns the packages that pkg depends on, itself included, that
// are neither in the standard library nor in this module.
func outside(t *testing.T, gotool, pkg string) []string {
	t.Helper()
	var deps []string
	for _, path := range nonStandard(t, gotool, pkg) {
		if path != module && !strings.HasPrefix(path, module+"/") {
			deps = append(deps, path)
		}
	}
	return deps
}

// nonStandard returns the packages that pkg depends on, itself included,
// that are not in the standard library.
func nonStandard(t *testing.T, gotool, pkg string) []string {
	t.Helper()
	cmd := exec.Command(gotool, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg)
	out, err := cmd.Output()
	if err != nil {
		msg := err.Error()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			msg += ": " + string(exit.Stderr)
		}
		t.Fatalf("go list -deps %s: %s", pkg, msg)
	}
	return strings.Fields(string(out))
}
