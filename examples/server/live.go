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
// makes a reload one step for the API's requests: each request holds mu
// for reading from its start until its response starts, and a reload
// holds it for writing while it makes the new data visible (in memory,
// while it writes the store; on PostgreSQL, while it commits). So a
// request reads the data before the reload or after it, never a mixture.
// The files are swapped with the data, and the resolver cache forgets
// every answer, refusals included: a key the file removed answers 401 at
// once, and a key new in the file is accepted at once.
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
