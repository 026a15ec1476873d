package files

import (
	"context"
	"io/fs"
	"strings"
)

// Source opens the file stored under a key (a deliverable's FileKey).
//
// Open returns an error wrapping fs.ErrNotExist when there is no file under
// key, including for a key that is not a valid name for the source; the
// status API answers that with 409 FILE_NOT_AVAILABLE. Any other error is
// answered 500, or 503 when it wraps context.DeadlineExceeded. ctx bounds
// the opening only: the file returned stays readable after ctx is done (the
// API bounds the look-up, not a slow client's download). The caller closes
// the file. When the returned file
// also implements io.Seeker, the status API serves HTTP range requests from
// it. Implementations are safe for concurrent use.
type Source interface {
	Open(ctx context.Context, key string) (fs.File, error)
}

// Route returns a Source that opens the keys that start with prefix in
// under, and every other key in rest: a portal's own files beside
// another's, such as sandbox.Files() (prefix "sandbox/"). A key under
// prefix missing from under is missing: it never falls through to rest.
func Route(prefix string, under, rest Source) Source {
	if under == nil || rest == nil {
		panic("files: Route: nil Source")
	}
	return route{prefix: prefix, under: under, rest: rest}
}

type route struct {
	prefix      string
	under, rest Source
}

func (r route) Open(ctx context.Context, key string) (fs.File, error) {
	if strings.HasPrefix(key, r.prefix) {
		return r.under.Open(ctx, key)
	}
	return r.rest.Open(ctx, key)
}
