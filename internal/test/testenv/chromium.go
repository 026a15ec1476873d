package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// Chromium returns the path of the Chromium browser, for the tests that
// check a page in a real browser: $CHROMIUM when set, else chromium on
// the PATH (Debian's package: apt-get install -y chromium; .ci/run
// installs it). Without one it skips the test, saying how to get one, and
// Main reports the skip; under RequireEnv it fails the test instead.
func Chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	skip(t, "this test needs Chromium: install it (apt-get install -y chromium) or run it with CHROMIUM=/path/to/chromium go test ./...",
		"CHROMIUM", "/usr/bin/chromium")
	return ""
}
