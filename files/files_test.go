package files_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/files"
)

// readAll opens key in src and returns its content and its Stat.
func readAll(t *testing.T, src files.Source, key string) ([]byte, fs.FileInfo) {
	t.Helper()
	is := is.New(t)
	f, err := src.Open(context.Background(), key)
	is.NoErr(err) // open
	defer f.Close()
	info, err := f.Stat()
	is.NoErr(err) // stat
	b, err := io.ReadAll(f)
	is.NoErr(err) // read
	return b, info
}

func TestMemory(t *testing.T) {
	is := is.New(t)
	m := files.NewMemory()
	content := []byte("hello, world")
	m.Put("reports/q1.pdf", content)
	content[0] = 'J' // Put keeps its own copy

	b, info := readAll(t, m, "reports/q1.pdf")
	is.Equal(string(b), "hello, world") // content as Put
	is.Equal(info.Name(), "q1.pdf")     // base name of the key
	is.Equal(info.Size(), int64(12))    // size
	is.True(!info.IsDir())

	f, err := m.Open(context.Background(), "reports/q1.pdf")
	is.NoErr(err)
	rs, ok := f.(io.ReadSeeker)
	is.True(ok) // memory files seek, so the API can serve ranges
	_, err = rs.Seek(7, io.SeekStart)
	is.NoErr(err)
	rest, err := io.ReadAll(rs)
	is.NoErr(err)
	is.Equal(string(rest), "world") // read after seek

	m.Put("reports/q1.pdf", []byte("v2"))
	b, _ = readAll(t, m, "reports/q1.pdf")
	is.Equal(string(b), "v2") // Put replaces

	m.Put("empty", nil)
	b, info = readAll(t, m, "empty")
	is.Equal(len(b), 0)             // an empty file exists
	is.Equal(info.Size(), int64(0)) // and has size 0
}

func TestMemoryMissing(t *testing.T) {
	is := is.New(t)
	_, err := files.NewMemory().Open(context.Background(), "nope")
	is.True(errors.Is(err, fs.ErrNotExist)) // missing key is fs.ErrNotExist
}

func TestMemoryCancelled(t *testing.T) {
	is := is.New(t)
	m := files.NewMemory()
	m.Put("a", []byte("a"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := m.Open(ctx, "a")
	is.True(errors.Is(err, context.Canceled)) // a done ctx is honoured
}

func TestMemoryConcurrent(t *testing.T) {
	m := files.NewMemory()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				m.Put("k", []byte("content"))
				if f, err := m.Open(context.Background(), "k"); err == nil {
					_, _ = io.ReadAll(f)
					_ = f.Close()
				}
			}
		}()
	}
	wg.Wait()
}

func TestFromFS(t *testing.T) {
	fsys := fstest.MapFS{
		"deliverables/d1/logo.svg": {Data: []byte("<svg/>")},
		"top.txt":                  {Data: []byte("top")},
	}
	src := files.FromFS(fsys)

	t.Run("found", func(t *testing.T) {
		is := is.New(t)
		b, info := readAll(t, src, "deliverables/d1/logo.svg")
		is.Equal(string(b), "<svg/>")
		is.Equal(info.Name(), "logo.svg")
	})

	for _, key := range []string{
		"missing.txt",
		"deliverables",            // a directory is not a file
		".",                       // nor is the root
		"/top.txt",                // leading slash
		"../top.txt",              // escaping
		"deliverables/../top.txt", // not clean
		"",
	} {
		t.Run("not exist "+key, func(t *testing.T) {
			is := is.New(t)
			_, err := src.Open(context.Background(), key)
			is.True(errors.Is(err, fs.ErrNotExist)) // invalid, missing or directory keys are fs.ErrNotExist
		})
	}

	t.Run("cancelled", func(t *testing.T) {
		is := is.New(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := src.Open(ctx, "top.txt")
		is.True(errors.Is(err, context.Canceled))
	})
}

func ExampleMemory() {
	m := files.NewMemory()
	m.Put("d1/report.txt", []byte("Quarterly report"))
	f, _ := m.Open(context.Background(), "d1/report.txt")
	defer f.Close()
	b, _ := io.ReadAll(f)
	fmt.Println(string(b))
	// Output: Quarterly report
}

// TestRoute: keys under the prefix open in one source, every other key in
// the other; a key under the prefix never falls through to the other.
func TestRoute(t *testing.T) {
	is := is.New(t)
	demo, own := files.NewMemory(), files.NewMemory()
	demo.Put("sandbox/mockup.png", []byte("demo"))
	own.Put("acme/brief.pdf", []byte("own"))
	own.Put("sandbox/secret.txt", []byte("not for sandbox keys"))
	src := files.Route("sandbox/", demo, own)
	b, _ := readAll(t, src, "sandbox/mockup.png")
	is.Equal(string(b), "demo")
	b, _ = readAll(t, src, "acme/brief.pdf")
	is.Equal(string(b), "own")
	_, err := src.Open(context.Background(), "sandbox/secret.txt")
	is.True(errors.Is(err, fs.ErrNotExist)) // the prefix is the other source's alone
}

// Serve the sandbox's demo files beside the portal's own.
func ExampleRoute() {
	demo, own := files.NewMemory(), files.NewMemory() // demo: sandbox.Files()
	demo.Put("sandbox/mockup.png", []byte("a demo file"))
	own.Put("acme/brief.pdf", []byte("the portal's file"))
	src := files.Route("sandbox/", demo, own) // give it to statusapi.WithFiles
	for _, key := range []string{"sandbox/mockup.png", "acme/brief.pdf"} {
		f, err := src.Open(context.Background(), key)
		if err != nil {
			fmt.Println(err)
			continue
		}
		b, _ := io.ReadAll(f)
		f.Close()
		fmt.Println(key, string(b))
	}
	// Output:
	// sandbox/mockup.png a demo file
	// acme/brief.pdf the portal's file
}
