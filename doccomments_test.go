package clientstatus_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// maxDocLines is the most lines a doc comment or a package doc may take:
// an explanation longer than that belongs in docs/.
const maxDocLines = 40

// outsideRef matches what a comment must not cite: a file outside the
// module or an issue number; the code and docs/ say what they mean.
var outsideRef = regexp.MustCompile(`(?i)CONTRACT\.md|DESIGN\.md|STYLE\.md|\bshared/|\.\./|\bissues? #?\d+|(^|[\s(])#\d+\b`)

// TestDocComments fails on a doc comment over maxDocLines lines in the
// module's non-test Go files, on a package doc over maxDocLines lines or
// outside doc.go, and on a comment of a Go or SQL file (tests included)
// that cites a file outside the module or an issue number.
func TestDocComments(t *testing.T) {
	fset := token.NewFileSet()
	docs, scanned := 0, 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != "." {
				return filepath.SkipDir // another module
			}
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		switch {
		case strings.HasSuffix(path, ".sql"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for n, line := range strings.Split(string(b), "\n") {
				if c, ok := strings.CutPrefix(strings.TrimSpace(line), "--"); ok && outsideRef.MatchString(c) {
					t.Errorf("%s:%d: a comment cites a file outside the module or an issue: say what it means\n\t%s", path, n+1, strings.TrimSpace(line))
				}
			}
			scanned++
			return nil
		case !strings.HasSuffix(path, ".go"):
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		scanned++
		for _, g := range f.Comments {
			for _, c := range g.List {
				if outsideRef.MatchString(c.Text) && path != "doccomments_test.go" {
					t.Errorf("%s: a comment cites a file outside the module or an issue: say what it means\n\t%s", fset.Position(c.Pos()), firstLine(c.Text, outsideRef))
				}
			}
		}
		if strings.HasSuffix(path, "_test.go") {
			return nil
		}
		if f.Doc != nil {
			docs++
			if filepath.Base(path) != "doc.go" {
				t.Errorf("%s: the package doc of %s is outside doc.go: move it there", fset.Position(f.Doc.Pos()), pkg)
			}
			if n := lines(fset, f.Doc); n > maxDocLines {
				t.Errorf("%s: the package doc of %s is %d lines (at most %d): move the detail to docs/ and link it", fset.Position(f.Doc.Pos()), pkg, n, maxDocLines)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var doc *ast.CommentGroup
			switch n := n.(type) {
			case *ast.FuncDecl:
				doc = n.Doc
			case *ast.GenDecl:
				doc = n.Doc
			case *ast.TypeSpec:
				doc = n.Doc
			case *ast.ValueSpec:
				doc = n.Doc
			case *ast.Field:
				doc = n.Doc
			}
			if doc != nil {
				if l := lines(fset, doc); l > maxDocLines {
					t.Errorf("%s: a doc comment of %d lines (at most %d): say what the signature does not, and move the essay to docs/", fset.Position(doc.Pos()), l, maxDocLines)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if docs < 10 || scanned < 100 {
		t.Fatalf("%d package docs in %d files: the scan is broken", docs, scanned)
	}
}

// lines returns how many lines a comment group spans.
func lines(fset *token.FileSet, g *ast.CommentGroup) int {
	return fset.Position(g.End()).Line - fset.Position(g.Pos()).Line + 1
}

// firstLine returns the first line of text that re matches.
func firstLine(text string, re *regexp.Regexp) string {
	for _, l := range strings.Split(text, "\n") {
		if re.MatchString(l) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}
