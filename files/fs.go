package files

import (
	"context"
	"io/fs"
)

// FromFS returns a Source that opens keys as paths in fsys: os.DirFS for a
// directory on disk, an embed.FS, or any other fs.FS.
//
// A key must be a valid fs path (see fs.ValidPath: slash-separated, no "."
// or ".." elements, no leading slash), so a key can never reach outside
// fsys; an invalid key, a missing file and a directory are all reported as
// fs.ErrNotExist. The Source is safe for concurrent use when fsys is.
func FromFS(fsys fs.FS) Source {
	return fsSource{fsys: fsys}
}

type fsSource struct{ fsys fs.FS }

func (s fsSource) Open(ctx context.Context, key string) (fs.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !fs.ValidPath(key) {
		return nil, &fs.PathError{Op: "open", Path: key, Err: fs.ErrNotExist}
	}
	f, err := s.fsys.Open(key)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	if info.IsDir() {
		_ = f.Close()
		return nil, &fs.PathError{Op: "open", Path: key, Err: fs.ErrNotExist}
	}
	return f, nil
}
