package clientstatus_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxGoLines is the most lines a Go file of the module may hold (issue
// 20): past it, a file holds more than one noun; split it by what its
// parts are about.
const maxGoLines = 800

// The most lines a page of docs/ may hold, and all of them together: a
// page says what is true now, in the fewest words; history is in the
// commit log.
const (
	maxDocPageLines = 300
	maxDocsLines    = 2500
)

// TestNoLongGoFiles fails on a Go file of the module, tests included,
// longer than maxGoLines.
func TestNoLongGoFiles(t *testing.T) {
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		if n := bytes.Count(b, []byte("\n")); n > maxGoLines {
			t.Errorf("%s has %d lines, more than %d: split it by what its parts are about", filepath.ToSlash(path), n, maxGoLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d Go files found: the walk is broken", files)
	}
}

// TestDocsStayShort fails on a page of docs/ longer than maxDocPageLines,
// and when docs/ as a whole passes maxDocsLines.
func TestDocsStayShort(t *testing.T) {
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 10 {
		t.Fatalf("only %d pages in docs/: the glob is broken", len(pages))
	}
	total := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		n := bytes.Count(b, []byte("\n"))
		total += n
		if n > maxDocPageLines {
			t.Errorf("%s has %d lines, more than %d: say what is true now, in fewer words, or split it by subject", filepath.ToSlash(page), n, maxDocPageLines)
		}
	}
	if total > maxDocsLines {
		t.Errorf("docs/ has %d lines in %d pages, more than %d: shorten the pages, leave history to the commit log", total, len(pages), maxDocsLines)
	}
}
