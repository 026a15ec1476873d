package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "streams:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("streams", flag.ContinueOnError)
	n := fs.Int("n", 1000, "streams to open (five per organization)")
	idle := fs.Duration("idle", 20*time.Second, "how long to measure the idle streams")
	pg := fs.String("pg", "", "PostgreSQL `URL`: measure the commit-to-event latency across two replicas instead")
	writes := fs.Int("writes", 100, "with -pg: writes of each way (library writer, plain SQL)")
	gap := fs.Duration("gap", 20*time.Millisecond, "with -pg: the pause after each write")
	foreign := fs.Duration("foreign", 0, "with -pg: hold a transaction open in another database of the server this long while writing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx := context.Background()
	if *pg != "" {
		return runPostgres(ctx, *pg, *writes, *gap, *foreign, out)
	}
	mem := memstore.New()
	keys := auth.NewKeys(auth.NewMemoryKeyStore(mem))
	defer keys.Close()
	resolver := auth.NewCache(keys)
	defer resolver.Close()
	orgs := (*n + statusapi.MaxStreamsPerOrganization - 1) / statusapi.MaxStreamsPerOrganization
	var creds []string
	for i := range orgs {
		id := fmt.Sprintf("org_%04d", i)
		if err := mem.PutOrganization(ctx, store.Organization{ID: id, Name: id, Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}); err != nil {
			return err
		}
		key, _, err := keys.Mint(ctx, id, "streams", nil)
		if err != nil {
			return err
		}
		creds = append(creds, key)
	}

	srv, addr, err := serve(mem, resolver, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}

	before := measure()
	conns := make([]*bufio.Reader, 0, *n)
	opened := time.Now()
	for i := range *n {
		c, br, err := openStream(addr, creds[i/statusapi.MaxStreamsPerOrganization])
		if err != nil {
			return fmt.Errorf("stream %d: %w (raise ulimit -n?)", i, err)
		}
		defer c.Close()
		conns = append(conns, br)
	}
	fmt.Fprintf(out, "opened %d streams (%d organizations) in %v\n", *n, orgs, time.Since(opened).Round(time.Millisecond))

	time.Sleep(2 * time.Second) // let the polls start
	open := measure()
	cpu0, wall0 := cpuTime(), time.Now()
	time.Sleep(*idle)
	cpu, wall := cpuTime()-cpu0, time.Since(wall0)
	perStream := func(a, b uint64) float64 { return float64(int64(b)-int64(a)) / float64(*n) / 1024 }
	fmt.Fprintf(out, "memory per stream: %.1f KiB of Go heap+stacks, %.1f KiB resident; %d goroutines for %d streams\n",
		perStream(before.goMem, open.goMem), perStream(before.rss, open.rss), open.goroutines-before.goroutines, *n)
	fmt.Fprintf(out, "idle: %v of CPU over %v: %.1f%% of one core (%.0f µs per stream per second)\n",
		cpu.Round(time.Millisecond), wall.Round(time.Millisecond), 100*cpu.Seconds()/wall.Seconds(),
		1e6*cpu.Seconds()/wall.Seconds()/float64(*n))

	// One event per organization; each stream reads its frame.
	wrote := time.Now()
	for i := range orgs {
		id := fmt.Sprintf("org_%04d", i)
		if err := mem.PutProject(ctx, store.Project{ID: "p1", OrgID: id, Name: "P", Status: store.ProjectPlanned}); err != nil {
			return err
		}
	}
	added := time.Since(wrote)
	var lat []time.Duration
	for i, br := range conns {
		for line := ""; !strings.Contains(line, "data: "); {
			if line, err = br.ReadString('\n'); err != nil {
				return fmt.Errorf("stream %d: %w", i, err)
			}
		}
		lat = append(lat, time.Since(wrote))
	}
	slices.Sort(lat)
	fmt.Fprintf(out, "one write in each of %d organizations (%v to write them all) reached all %d streams: min %v, p50 %v, max %v (read in order, so an upper bound)\n",
		orgs, added.Round(time.Microsecond), len(lat), lat[0].Round(time.Microsecond), lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond))

	shut, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	began := time.Now()
	if err := srv.Shutdown(shut); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	fmt.Fprintf(out, "http.Server.Shutdown with %d open streams: %v\n", *n, time.Since(began).Round(time.Millisecond))
	return nil
}

// serve serves statusapi on st, keys resolved by resolver, on a loopback
// port; its streams end when the server shuts down.
func serve(st store.Store, resolver auth.KeyResolver, logger *slog.Logger) (*http.Server, string, error) {
	stop, endStreams := context.WithCancel(context.Background())
	h := statusapi.New(st, resolver, ratelimit.NewMemory(), statusapi.WithShutdown(stop),
		statusapi.WithSigningKey([]byte("0123456789abcdef0123456789abcdef")), statusapi.WithLogger(logger))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		endStreams()
		return nil, "", err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	srv.RegisterOnShutdown(endStreams)
	go func() { _ = srv.Serve(ln) }()
	return srv, ln.Addr().String(), nil
}

// openStream opens a live stream of key's organization at addr on a raw
// TCP connection, and reads the answer's headers.
func openStream(addr, key string) (net.Conn, *bufio.Reader, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(c, "GET /v1/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nAuthorization: Bearer %s\r\n\r\n", key)
	br := bufio.NewReaderSize(c, 512)
	status, err := br.ReadString('\n')
	line := status
	for err == nil && line != "\r\n" { // the headers
		line, err = br.ReadString('\n')
	}
	if err != nil || !strings.Contains(status, " 200 ") {
		c.Close()
		return nil, nil, fmt.Errorf("%q %v", status, err)
	}
	return c, br, nil
}

type sample struct {
	goMem, rss uint64
	goroutines int
}

func measure() sample {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return sample{goMem: m.HeapInuse + m.StackInuse, rss: rss(), goroutines: runtime.NumGoroutine()}
}

// rss is the resident set of the process, from /proc (0 elsewhere).
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var size, resident uint64
	fmt.Sscan(string(b), &size, &resident)
	return resident * uint64(os.Getpagesize())
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
