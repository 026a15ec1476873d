package main

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"
)

// TestSIGHUP builds the server and runs it on a data file as an operator
// would, changes the file and sends the process a real SIGHUP, as
// `kill -HUP` or `systemctl reload` do; then a file that does not load,
// and SIGTERM.
func TestSIGHUP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server: not with -short")
	}
	is := is.New(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "server")
	// go test puts its own GOROOT/bin first on PATH: "go" is the go running the test.
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	name := filepath.Join(dir, "data.json")
	beforeReload().write(t, name)
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-data", name, "-log-format", "json")
	cmd.Env = []string{} // none of the test's DATABASE_URL or REDIS_URL
	stderr, err := cmd.StderrPipe()
	is.NoErr(err)
	is.NoErr(cmd.Start())
	exited := make(chan error, 1)
	lines := make(chan map[string]any, 10000) // never full: a full one would block the server's logging
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var line map[string]any
			if json.Unmarshal(sc.Bytes(), &line) == nil {
				lines <- line
			}
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // once it has exited: os.ErrProcessDone
	// logged waits for a log line with the message, and returns it.
	logged := func(msg string) map[string]any {
		t.Helper()
		timeout := time.After(time.Minute)
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("the server exited before logging %q", msg)
				}
				if line["msg"] == msg {
					return line
				}
			case <-timeout:
				t.Fatalf("no %q logged within a minute", msg)
			}
		}
	}

	s := &testServer{url: logged("listening")["public_url"].(string)}
	is.Equal(read(t, s, "/v1/projects", keyAOld).status, 200)
	is.Equal(download(t, s, "d1", keyA), "first bytes")

	afterReload().write(t, name)
	is.NoErr(syscall.Kill(cmd.Process.Pid, syscall.SIGHUP))
	logged("reloaded the data file")
	is.Equal(read(t, s, "/v1/projects", keyAOld).status, 401) // a removed key
	is.Equal(read(t, s, "/v1/projects/p3", keyA).status, 404) // a removed project
	is.Equal(read(t, s, "/v1/projects/p4", keyA).status, 200) // a new one
	is.Equal(download(t, s, "d1", keyA), "second bytes")      // new content
	before := read(t, s, "/v1/projects", keyA)

	writeFile(t, name, []byte(`{"organizations": [`))
	is.NoErr(syscall.Kill(cmd.Process.Pid, syscall.SIGHUP))
	failed := logged("reload: the data file does not load; the data served is unchanged")
	is.Equal(failed["level"], "ERROR")
	is.True(failed["err"] != nil)                                // why
	is.Equal(read(t, s, "/v1/projects", keyA).body, before.body) // nothing changed

	is.NoErr(syscall.Kill(cmd.Process.Pid, syscall.SIGTERM))
	logged("stopped")
	select {
	case err := <-exited:
		is.NoErr(err) // exit status 0
	case <-time.After(time.Minute):
		t.Fatal("the server did not exit within a minute of SIGTERM")
	}
}
