package main

import (
	"context"
	"io/fs"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/files"
)

// live is what the API reads that a reload changes, and the guard that
// makes a reload one step for the API's requests.
//
// Every API request holds the guard (mu, for reading) from its start until
// its response starts: while it authenticates, takes its rate limit, reads
// the store and opens a file. A reload holds it for writing while it makes
// the new data visible: in memory, while it writes the change to the
// store; on PostgreSQL, while it commits its transaction. So a request
// reads either the data before the reload or the data after it, never a
// mixture: not a project already changed beside an invoice not yet, nor a
// key already revoked while its organization's items are still the old
// ones. What a request can see of a reload is a pause: one that arrives
// while the change is written waits for it (in memory, a few milliseconds
// for a thousand changed items), and the reload waits for the requests
// already reading, each bounded by the API's timeout. The guard is let go
// as the response starts, so a slow client's download never holds a
// reload up: it goes on sending the bytes it opened before.
//
// The resolver and the files are swapped with the data: each reload starts
// a new resolver cache, so that a key removed or revoked answers 401 at
// once rather than at the end of auth.DefaultCacheTTL, and the files of
// the new dataset replace the old ones.
type live struct {
	mu       sync.RWMutex
	keys     *auth.Keys // behind every resolver cache
	resolver atomic.Pointer[auth.Cache]
	files    atomic.Pointer[files.Memory]
}

var (
	_ auth.KeyResolver = (*live)(nil)
	_ files.Source     = (*live)(nil)
)

// newLive returns the live data of a server whose keys are keys and
// whose files are content's.
func newLive(keys *auth.Keys, content map[string][]byte) *live {
	l := &live{keys: keys}
	l.swap(filesOf(content))
	return l
}

// filesOf returns a files.Memory that holds content.
func filesOf(content map[string][]byte) *files.Memory {
	fm := files.NewMemory()
	for key, b := range content {
		fm.Put(key, b)
	}
	return fm
}

// swap starts a new resolver cache and makes fm the files served. The
// caller holds mu for writing, or is the only one to use l.
func (l *live) swap(fm *files.Memory) {
	l.files.Store(fm)
	l.resolver.Store(auth.NewCache(l.keys))
}

// Resolve resolves an API key through the current resolver cache.
func (l *live) Resolve(ctx context.Context, credential string) (auth.Principal, error) {
	return l.resolver.Load().Resolve(ctx, credential)
}

// Ping pings the key store, for readiness (see statusapi.Ready).
func (l *live) Ping(ctx context.Context) error {
	return l.resolver.Load().Ping(ctx)
}

// Open opens a file of the current dataset.
func (l *live) Open(ctx context.Context, key string) (fs.File, error) {
	return l.files.Load().Open(ctx, key)
}

// guard serves next holding the guard for reading until the response
// starts (or next returns without one).
func (l *live) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.RLock()
		gw := &guardedWriter{ResponseWriter: w, release: sync.OnceFunc(l.mu.RUnlock)}
		defer gw.release()
		next.ServeHTTP(gw, r)
	})
}

// guardedWriter lets go of the guard before the first byte of the
// response goes out. Unwrap lets http.ResponseController reach the
// writer beneath.
type guardedWriter struct {
	http.ResponseWriter
	release func()
}

func (g *guardedWriter) WriteHeader(code int) {
	g.release()
	g.ResponseWriter.WriteHeader(code)
}

func (g *guardedWriter) Write(p []byte) (int, error) {
	g.release()
	return g.ResponseWriter.Write(p)
}

func (g *guardedWriter) Unwrap() http.ResponseWriter { return g.ResponseWriter }
