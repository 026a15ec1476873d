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
// The files are swapped with the data, and the resolver cache forgets
// every answer it remembers, refusals included: a key removed or revoked
// answers 401 at once, even when the reload revoked it in a transaction
// whose notice reaches the cache later, and a key new in the file is
// accepted at once, even if a client tried it before.
type live struct {
	mu    sync.RWMutex
	keys  *auth.Keys  // behind cache
	cache *auth.Cache // the API's resolver
	files atomic.Pointer[files.Memory]
}

var _ files.Source = (*live)(nil)

// newLive returns the live data of a server whose keys are keys and
// whose files are content's. The caller closes its cache.
func newLive(keys *auth.Keys, content map[string][]byte) *live {
	l := &live{keys: keys, cache: auth.NewCache(keys)}
	l.files.Store(filesOf(content))
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

// swap makes fm the files served and empties the resolver cache. The
// caller holds mu for writing.
func (l *live) swap(fm *files.Memory) {
	l.files.Store(fm)
	l.cache.Forget(auth.AllOrganizations)
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
