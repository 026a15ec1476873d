package testenv

import (
	"fmt"
	"io"
	"maps"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// skipped counts, by variable, the tests that skipped for want of it.
var skipped struct {
	sync.Mutex
	n       int
	missing map[string]string // variable to an example value
}

// skip skips the test, saying msg, for want of the variable name (an
// example of its value), and counts it for Main; under RequireEnv it
// fails the test instead.
func skip(t testing.TB, msg, name, example string) {
	t.Helper()
	if os.Getenv(RequireEnv) == "1" {
		t.Fatal(msg + " (" + RequireEnv + "=1 forbids skipping)")
	}
	skipped.Lock()
	if skipped.missing == nil {
		skipped.missing = make(map[string]string)
	}
	skipped.n++
	skipped.missing[name] = example
	skipped.Unlock()
	t.Skip(msg)
}

// Main runs the package's tests and exits, saying on one line, when tests
// skipped for want of a service, which variables to set. A package whose
// tests use PostgresURL or RedisURL has this TestMain:
//
//	func TestMain(m *testing.M) {
//		testenv.Main(m)
//	}
//
// The line goes, without -v, to the go command's own standard error (on
// Linux, through /proc), else to the terminal, as well as to the test's
// output, since go test hides a passing package's output (docs/testing.md
// says why). A cached result does not repeat it. With RequireEnv set,
// missing services fail the tests instead.
func Main(m *testing.M) {
	os.Exit(AfterRun(m.Run()))
}

// AfterRun is Main for a TestMain that has more to do: it reports the
// skips of a run that ended with code, and returns code.
//
//	code := testenv.AfterRun(m.Run())
//	... clean up ...
//	os.Exit(code)
func AfterRun(code int) int {
	line := skipLine(testPackage())
	if line == "" {
		return code
	}
	fmt.Print(line)
	if code == 0 && !testing.Verbose() {
		if w := goTestOutput(); w != nil {
			_, _ = io.WriteString(w, line)
			w.Close()
		}
	}
	return code
}

// goTestOutput opens where go test's own output goes, for a line that
// go test would otherwise hide: the standard error of the go command that
// runs this test binary (a terminal, a CI log or a pipe alike), found
// through /proc where there is one; else the terminal (/dev/tty); nil
// when neither opens.
func goTestOutput() io.WriteCloser {
	ppid := strconv.Itoa(os.Getppid())
	if comm, err := os.ReadFile("/proc/" + ppid + "/comm"); err == nil && strings.TrimSpace(string(comm)) == "go" {
		if f, err := os.OpenFile("/proc/"+ppid+"/fd/2", os.O_WRONLY|os.O_APPEND, 0); err == nil {
			return f
		}
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		return tty
	}
	return nil
}

// skipLine returns the line that says how many tests of pkg skipped and
// how to run them, or "" when none skipped.
func skipLine(pkg string) string {
	skipped.Lock()
	defer skipped.Unlock()
	if skipped.n == 0 {
		return ""
	}
	var set []string
	for _, name := range slices.Sorted(maps.Keys(skipped.missing)) {
		set = append(set, name+"="+skipped.missing[name])
	}
	tests := "tests"
	if skipped.n == 1 {
		tests = "test"
	}
	return fmt.Sprintf("skip\t%s\t%d %s skipped: run %s go test ./...\n", pkg, skipped.n, tests, strings.Join(set, " "))
}

// testPackage returns the import path of the package under test.
func testPackage() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Path != "" {
		return strings.TrimSuffix(bi.Path, ".test")
	}
	wd, _ := os.Getwd()
	return wd
}
