package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clientstatus/clientstatus/tools/internal/loadgen"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	base := fs.String("base-url", "http://localhost:8080", "where the API is mounted, without /v1")
	key := fs.String("key", os.Getenv("STATUS_API_KEY"), "API key (or $STATUS_API_KEY)")
	paths := fs.String("path", "/v1/projects", "comma-separated paths to request in turn")
	conc := fs.Int("c", 8, "concurrent clients")
	dur := fs.Duration("d", 10*time.Second, "how long to send requests")
	pid := fs.Int("pid", 0, "the server's process id, to report its resident memory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *key == "" || *conc < 1 || *dur <= 0 {
		return errors.New("need -key (or $STATUS_API_KEY), -c >= 1 and -d > 0")
	}
	targets := strings.Split(*paths, ",")
	rssBefore := rss(*pid)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *conc}, Timeout: 30 * time.Second}
	var (
		sent     = make([]int, *conc) // by client
		mu       sync.Mutex
		all      []time.Duration
		statuses = map[int]int{}
		errs     int
	)
	elapsed, err := loadgen.Run(ctx, client, *conc, *dur, func(c int) (*http.Request, error) {
		sent[c]++
		return loadgen.Get(*base+targets[(c+sent[c]-1)%len(targets)], *key)
	}, func(_ int, resp *http.Response, took time.Duration, err error) error {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			errs++
			return nil
		}
		all = append(all, took)
		statuses[resp.StatusCode]++
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(all)
	fmt.Fprintf(out, "%d requests in %s from %d clients: %.0f requests/s\n", len(all), elapsed.Round(time.Millisecond), *conc, float64(len(all))/elapsed.Seconds())
	if len(all) > 0 {
		q := func(p float64) time.Duration { return all[int(p*float64(len(all)-1))].Round(time.Microsecond) }
		fmt.Fprintf(out, "latency p50 %s  p90 %s  p99 %s  max %s\n", q(0.50), q(0.90), q(0.99), all[len(all)-1].Round(time.Microsecond))
	}
	var parts []string
	for _, s := range slices.Sorted(maps.Keys(statuses)) {
		parts = append(parts, fmt.Sprintf("%d: %d", s, statuses[s]))
	}
	fmt.Fprintf(out, "statuses %s; transport errors %d\n", strings.Join(parts, ", "), errs)
	if *pid > 0 {
		fmt.Fprintf(out, "server resident memory %s before, %s after\n", rssBefore, rss(*pid))
	}
	return nil
}

// rss returns the resident memory of process pid from /proc, or "?".
func rss(pid int) string {
	if pid <= 0 {
		return "?"
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
