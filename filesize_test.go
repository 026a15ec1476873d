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
