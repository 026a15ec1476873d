package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/clientstatus/clientstatus/tools/internal/loadgen"
)

// loader sends GET requests with a bearer key to one URL from concurrent
// connections for a while and returns the successful requests a second.
// A response other than 200, or a transport error, fails the measurement:
// a figure that counts errors measures something else.
type loader interface {
	measure(ctx context.Context, url, key string, d time.Duration) (float64, error)
	// describe says which tool it is and how it is set, for the header.
	describe() string
}

// errNoneCompleted is the error of a measurement in which no request
// completed: no figure, but nothing wrong either (a warm-up's first
// requests may wait for connections to the database to open).
var errNoneCompleted = errors.New("no request completed")

// wrkLoader runs wrk, which must be on the PATH (path is where).
type wrkLoader struct {
	path           string
	threads, conns int
	version        string // wrk -v's first line, for the header
}

// newWrkLoader returns a wrkLoader for the wrk at path.
func newWrkLoader(path string, threads, conns int) *wrkLoader {
	out, _ := exec.Command(path, "-v").CombinedOutput() // wrk -v exits 1
	version, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	version, _, _ = strings.Cut(version, " Copyright")
	return &wrkLoader{path: path, threads: threads, conns: conns, version: strings.TrimSpace(version)}
}

// describe names wrk, its version and its settings.
func (w *wrkLoader) describe() string {
	v := w.version
	if v == "" {
		v = "wrk"
	}
	return fmt.Sprintf("%s (`%s`), -t%d -c%d --latency --timeout %ds", v, w.path, w.threads, w.conns, wrkTimeout)
}

// wrkTimeout is wrk's --timeout in seconds: a response slower than that
// counts as a socket error, which fails the run. wrk's default, 2s, would
// fail a slow case that is merely slow (a large organization on a busy
// machine); a figure is wanted for it.
const wrkTimeout = 10

// measure runs wrk for d, rounded up to whole seconds (wrk's -d takes no
// fraction), and returns its Requests/sec.
func (w *wrkLoader) measure(ctx context.Context, url, key string, d time.Duration) (float64, error) {
	secs := max(1, int(math.Ceil(d.Seconds())))
	cmd := exec.CommandContext(ctx, w.path,
		"-t"+strconv.Itoa(w.threads), "-c"+strconv.Itoa(w.conns), "-d"+strconv.Itoa(secs)+"s",
		"--latency", "--timeout", strconv.Itoa(wrkTimeout)+"s", "-H", "Authorization: Bearer "+key, url)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("wrk: %w: %s", err, strings.TrimSpace(out.String()))
	}
	return parseWrk(out.String())
}

var (
	wrkRate   = regexp.MustCompile(`(?m)^Requests/sec:\s+([0-9.]+)`)
	wrkNon2xx = regexp.MustCompile(`(?m)^\s*Non-2xx or 3xx responses:\s+(\d+)`)
	wrkSocket = regexp.MustCompile(`(?m)^\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	wrkTotal  = regexp.MustCompile(`(?m)^\s*(\d+) requests in`)
)

// parseWrk reads wrk's output: the Requests/sec line, and the lines wrk
// prints only when something went wrong (responses of status 400 and
// over, socket errors), which fail the measurement.
func parseWrk(out string) (float64, error) {
	if m := wrkNon2xx.FindStringSubmatch(out); m != nil && m[1] != "0" {
		return 0, fmt.Errorf("wrk: %s responses were not 2xx or 3xx:\n%s", m[1], out)
	}
	if m := wrkSocket.FindStringSubmatch(out); m != nil && (m[1] != "0" || m[2] != "0" || m[3] != "0" || m[4] != "0") {
		return 0, fmt.Errorf("wrk: socket errors (connect %s, read %s, write %s, timeout %s):\n%s", m[1], m[2], m[3], m[4], out)
	}
	if m := wrkTotal.FindStringSubmatch(out); m != nil && m[1] == "0" {
		return 0, fmt.Errorf("wrk: %w:\n%s", errNoneCompleted, out)
	}
	m := wrkRate.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("wrk: no Requests/sec line in its output:\n%s", out)
	}
	return strconv.ParseFloat(m[1], 64)
}

// goLoader is the load generator built in, for a machine without wrk:
// conns goroutines, each with a request in flight at a time, on one
// shared http.Transport that keeps conns connections to each server, as
// tools/load does. It runs in the process it measures, so it takes CPU
// from the servers as wrk does from outside.
type goLoader struct {
	conns  int
	client *http.Client
}

// newGoLoader returns a goLoader of conns connections.
func newGoLoader(conns int) *goLoader {
	tr := &http.Transport{
		MaxIdleConns:        0, // no limit across servers
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		DisableCompression:  true, // as wrk: no Accept-Encoding
	}
	return &goLoader{conns: conns, client: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

// describe names the built-in generator and its connections.
func (g *goLoader) describe() string {
	return fmt.Sprintf("built-in Go load generator (wrk not used), %d connections", g.conns)
}

// close drops the generator's idle connections.
func (g *goLoader) close() { g.client.CloseIdleConnections() }

// measure sends requests for d and returns the 200s a second. The first
// other status or transport error stops it and is returned.
func (g *goLoader) measure(ctx context.Context, url, key string, d time.Duration) (float64, error) {
	var ok atomic.Int64
	elapsed, err := loadgen.Run(ctx, g.client, g.conns, d, func(int) (*http.Request, error) {
		return loadgen.Get(url, key)
	}, func(_ int, resp *http.Response, _ time.Duration, err error) error {
		switch {
		case err != nil:
			return err
		case resp.StatusCode != http.StatusOK:
			return fmt.Errorf("status %d from %s", resp.StatusCode, url)
		}
		ok.Add(1)
		return nil
	})
	n := ok.Load()
	switch {
	case err != nil:
		return 0, fmt.Errorf("go load: %w (after %d requests of 200)", err, n)
	case n == 0:
		return 0, fmt.Errorf("go load: %w", errNoneCompleted)
	}
	return float64(n) / elapsed.Seconds(), nil
}

// median returns the median of xs (the mean of the middle two for an even
// count); 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
