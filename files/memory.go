package files

import (
	"bytes"
	"context"
	"io/fs"
	"path"
	"sync"
	"time"
)

// Memory is a Source that keeps files in memory. The zero value is not
// ready; use NewMemory. It is safe for concurrent use.
type Memory struct {
	mu    sync.RWMutex
	files map[string][]byte
}

var _ Source = (*Memory)(nil)

// NewMemory returns an empty Memory.
func NewMemory() *Memory {
	return &Memory{files: make(map[string][]byte)}
}

// Put stores content under key, replacing any file already there. Memory
// keeps its own copy, so the caller may reuse content.
func (m *Memory) Put(key string, content []byte) {
	c := bytes.Clone(content)
	if c == nil {
		c = []byte{}
	}
	m.mu.Lock()
	m.files[key] = c
	m.mu.Unlock()
}

// Open returns the file stored under key: it implements io.Seeker and
// io.ReaderAt as well as fs.File, and its Stat reports the base name of
// key and the size. Open returns an *fs.PathError wrapping fs.ErrNotExist
// for a key never Put, and ctx's error when ctx is done.
func (m *Memory) Open(ctx context.Context, key string) (fs.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.RLock()
	content, ok := m.files[key]
	m.mu.RUnlock()
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: key, Err: fs.ErrNotExist}
	}
	// content is never changed after Put (Put stores a new slice), so
	// readers can share it.
	return &memFile{Reader: bytes.NewReader(content), info: memInfo{name: path.Base(key), size: int64(len(content))}}, nil
}

type memFile struct {
	*bytes.Reader
	info memInfo
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Close() error               { return nil }

type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }
