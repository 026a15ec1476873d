package clientstatus_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoCapabilityProbes counts the type assertions in non-test code that
// probe a value for an interface of this module (of another package or
// its own)
// (x.(store.Events), x.(ratelimit.Peeker), x.(auth.Invalidations)...) or
// for an anonymous interface (x.(interface{ Ping(context.Context) error })):
// what the API serves must be declared by the types a portal passes, never
// discovered on them, so that a wrapper (struct{ store.Store }) keeps every
// feature. The count must be 0.
//
// Left out: test files; the packages whose purpose is testing (storetest,
// authtest, apitest, ...: their name ends in "test", and the cases they
// run may depend on the write side a subject offers); and an anonymous
// interface{ Unwrap() []error }, which unwraps an error rather than probe
// a capability.
func TestNoCapabilityProbes(t *testing.T) {
	fset := token.NewFileSet()
	interfaces := map[string]map[string]bool{} // import path -> its interface types
	type file struct {
		pkg string
		f   *ast.File
	}
	var files []file
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != "." {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := module
		if dir := filepath.ToSlash(filepath.Dir(path)); dir != "." {
			pkg += "/" + dir
		}
		for _, decl := range f.Decls {
			if g, ok := decl.(*ast.GenDecl); ok {
				for _, spec := range g.Specs {
					if ts, ok := spec.(*ast.TypeSpec); ok {
						if _, ok := ts.Type.(*ast.InterfaceType); ok {
							if interfaces[pkg] == nil {
								interfaces[pkg] = map[string]bool{}
							}
							interfaces[pkg][ts.Name.Name] = true
						}
					}
				}
			}
		}
		if !strings.HasSuffix(f.Name.Name, "test") {
			files = append(files, file{pkg, f})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(interfaces[module+"/store"]) == 0 {
		t.Fatal("found no interface of package store: the walk is broken")
	}
	probes := 0
	for _, fl := range files {
		imports := map[string]string{} // local name -> import path
		for _, im := range fl.f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			name := path[strings.LastIndex(path, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = path
		}
		probe := func(typ ast.Expr) bool {
			switch ty := typ.(type) {
			case *ast.InterfaceType:
				m := ty.Methods.List
				return !(len(m) == 1 && len(m[0].Names) == 1 && m[0].Names[0].Name == "Unwrap")
			case *ast.SelectorExpr:
				x, ok := ty.X.(*ast.Ident)
				return ok && imports[x.Name] != fl.pkg && interfaces[imports[x.Name]][ty.Sel.Name]
			case *ast.Ident: // an exported interface of the package itself (an
				// unexported one no portal's value can implement)
				return ast.IsExported(ty.Name) && interfaces[fl.pkg][ty.Name]
			}
			return false
		}
		ast.Inspect(fl.f, func(n ast.Node) bool {
			var types []ast.Expr
			switch n := n.(type) {
			case *ast.TypeAssertExpr:
				types = []ast.Expr{n.Type} // nil in a type switch's x.(type)
			case *ast.TypeSwitchStmt:
				for _, c := range n.Body.List {
					types = append(types, c.(*ast.CaseClause).List...)
				}
			}
			for _, typ := range types {
				if typ != nil && probe(typ) {
					probes++
					t.Errorf("%s: a capability probed by type assertion; declare it in the interface, or take it explicitly (an option)", fset.Position(typ.Pos()))
				}
			}
			return true
		})
	}
	if probes > 0 {
		t.Errorf("%d capability type assertions, want 0", probes)
	}
}
