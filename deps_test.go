package clientstatus_test

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// module is this module's path: its packages are always allowed.
const module = "github.com/clientstatus/clientstatus"

// TestPackagesImportOnlyTheStandardLibrary checks that the packages a
// portal compiles when it mounts the handler on the in-memory parts import
// nothing but the standard library and this module, directly or not. A
// dependency (a driver, a client library) belongs in a subpackage named
// after what it wraps, such as ratelimit/redislimit.
func TestPackagesImportOnlyTheStandardLibrary(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("this test runs the go command, which is not in PATH: %v", err)
	}
	tests := []struct {
		pkg string
		// pending are outside packages still reached, each with the
		// change that removes it: tolerated until then, and an error once
		// gone, so that the exception does not outlive its reason.
		pending map[string]string
	}{
		{
			pkg: "./ratelimit",
			pending: map[string]string{
				"github.com/golang-jwt/jwt/v5": "through auth (for auth.Principal), until the JWT code moves out of auth",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			is := is.New(t)
			out, err := exec.Command(goCmd, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", tt.pkg).Output()
			if exitErr := (*exec.ExitError)(nil); errors.As(err, &exitErr) {
				t.Fatalf("go list %s: %v\n%s", tt.pkg, err, exitErr.Stderr)
			}
			is.NoErr(err) // go list
			var outside, gone []string
			seen := map[string]bool{}
			for _, path := range strings.Fields(string(out)) {
				switch {
				case path == module || strings.HasPrefix(path, module+"/"):
				case tt.pending[path] != "":
					seen[path] = true
				default:
					outside = append(outside, path)
				}
			}
			for path, why := range tt.pending {
				if !seen[path] {
					gone = append(gone, path+" ("+why+")")
				}
			}
			slices.Sort(gone)
			is.Equal(outside, nil) // packages outside the standard library and this module
			is.Equal(gone, nil)    // pending exceptions no longer needed: remove them from this test
		})
	}
}
