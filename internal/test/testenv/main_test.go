package testenv_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/testenv"
)

// TestSkipLineReachesGoTestsOutput: go test of a package whose test
// skipped for want of PostgreSQL prints the skip line where go test's own
// output goes (a CI log, a pipe: no terminal here), not only to a
// terminal.
func TestSkipLineReachesGoTestsOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	is := is.New(t)
	// go test puts its own GOROOT/bin first on PATH: "go" is the go running the test.
	cmd := exec.Command("go", "test", "-count=1", "./testdata/skipper")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TEST_DATABASE_URL=") && !strings.HasPrefix(kv, testenv.RequireEnv+"=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	out, err := cmd.CombinedOutput() // a pipe, and no controlling terminal for /dev/tty
	is.NoErr(err)
	is.True(strings.Contains(string(out), "skip\tgithub.com/clientstatus/clientstatus/internal/test/testenv/testdata/skipper\t1 test skipped: run TEST_DATABASE_URL=")) // the line, in go test's output
	is.True(strings.Contains(string(out), "ok  \tgithub.com/clientstatus/clientstatus/internal/test/testenv/testdata/skipper"))
}
