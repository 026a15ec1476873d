package clientstatus_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The tests' own rules, checked over the module's source: no
// test waits for time to pass, and every test builds its handler with the
// one harness, internal/test/apitest.

// fakeTime marks a time.Sleep inside a testing/synctest bubble, where it
// takes no real time: the way such a test moves its clock.
const fakeTime = "// fake time (synctest)"

// TestNoTestSleeps fails on a time.Sleep in a test or in a package made
// for tests, unless its line says it is fakeTime. A test that waits for
// time to pass uses testing/synctest or an injected clock
// (testenv.Clock, storetest.WithClock); one that waits for real I/O polls
// the condition with testenv.Poll.
func TestNoTestSleeps(t *testing.T) {
	fake := 0
	for _, f := range testSources(t) {
		for n, line := range f.lines {
			if !strings.Contains(line, "time.Sleep(") {
				continue
			}
			if strings.Contains(line, fakeTime) {
				fake++
				continue
			}
			t.Errorf("%s:%d: a test sleeps: move a clock (synctest, testenv.Clock) or poll the awaited condition (testenv.Poll)\n\t%s", f.path, n+1, strings.TrimSpace(line))
		}
	}
	if fake == 0 {
		t.Fatal("no synctest sleep found: the scan is broken")
	}
}

// handlerMakers are the files of tests that may call statusapi.New
// themselves: the harness, New's own tests (its argument checks, its
// warning without a signing key), and code that shows how to call New.
var handlerMakers = map[string]bool{
	"internal/test/apitest/apitest.go": true,
	"statusapi/new_test.go":            true,
	"statusapi/download_test.go":       true, // TestDownloadWithoutSigningKey
	"readme_test.go":                   true, // the README's snippets, word for word
	"examples/server/mount_test.go":    true, // mounted as the README mounts it
	"options_test.go":                  true, // New's options, checked against Validate
}

// TestHandlersFromTheHarness fails on a call of statusapi.New in a test or
// in a package made for tests other than handlerMakers and the runnable
// examples: they build their handler with apitest (New, Replica, Handler).
func TestHandlersFromTheHarness(t *testing.T) {
	harness := false
	for _, f := range testSources(t) {
		example := strings.HasPrefix(filepath.Base(f.path), "example")
		for n, line := range f.lines {
			if !strings.Contains(line, "statusapi.New(") {
				continue
			}
			if f.path == "internal/test/apitest/apitest.go" {
				harness = true
			}
			if handlerMakers[f.path] || example {
				continue
			}
			t.Errorf("%s:%d: a test builds its own handler: use internal/test/apitest (apitest.New, API.Replica, apitest.Handler)\n\t%s", f.path, n+1, strings.TrimSpace(line))
		}
	}
	if !harness {
		t.Fatal("the harness's statusapi.New not found: the scan is broken")
	}
}

// source is a Go file of tests, by its slash path from the module's root.
type source struct {
	path  string
	lines []string
}

// testSources returns the module's test files and the files of its
// packages made for tests (a directory named ...test or ...fake), leaving
// out nested modules (examples/mounting) and testdata.
func testSources(t *testing.T) []source {
	t.Helper()
	var out []source
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == "." {
				return nil
			}
			if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		dir := filepath.Base(filepath.Dir(path))
		forTests := strings.HasSuffix(path, "_test.go") || strings.HasSuffix(dir, "test") || strings.HasSuffix(dir, "fake")
		if !strings.HasSuffix(path, ".go") || !forTests || path == "testconventions_test.go" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out = append(out, source{filepath.ToSlash(path), strings.Split(string(b), "\n")})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
