package gosource

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

var (
	mu    sync.Mutex
	cache = map[string]*types.Package{}
)

// Check returns the type-checked package at path (an import path of this
// module or of the standard library), from its non-test sources. It fails
// t when the package does not type-check, and skips t when the go
// command cannot say where its sources and export data are.
func Check(t testing.TB, path string) *types.Package {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if pkg, ok := cache[path]; ok {
		return pkg
	}
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}={{.Dir}}", path).Output()
	if err != nil {
		t.Skipf("go list -export %s: %v", path, err)
	}
	exports := make(map[string]string)
	dir := ""
	for line := range bytes.Lines(out) {
		imp, rest, _ := strings.Cut(strings.TrimSpace(string(line)), "=")
		export, d, _ := strings.Cut(rest, "=")
		exports[imp] = export
		if imp == path {
			dir = d
		}
	}
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		t.Fatalf("gosource: %s: %v", path, err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			t.Fatalf("gosource: %v", err)
		}
		files = append(files, f)
	}
	lookup := func(imp string) (io.ReadCloser, error) {
		file := exports[imp]
		if file == "" {
			return nil, fmt.Errorf("no export data for %s", imp)
		}
		return os.Open(file)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	pkg, err := conf.Check(path, fset, files, nil)
	if err != nil {
		t.Fatalf("gosource: type-checking %s: %v", path, err)
	}
	cache[path] = pkg
	return pkg
}

// Consts returns, sorted, the values of the string constants of the type
// named typeName that the package at path declares (a constant whose type
// is implicit, as in an iota group, counts too). It fails t when the
// package declares no such type.
func Consts(t testing.TB, path, typeName string) []string {
	t.Helper()
	pkg := Check(t, path)
	tn, ok := pkg.Scope().Lookup(typeName).(*types.TypeName)
	if !ok {
		t.Fatalf("gosource: no type %s in %s", typeName, path)
	}
	return constsOf(pkg, tn.Type())
}

// Enums returns the enums of the package at path, by type name: the
// sorted values of the constants of each exported type whose underlying
// type is string and that has some constants.
func Enums(t testing.TB, path string) map[string][]string {
	t.Helper()
	pkg := Check(t, path)
	out := make(map[string][]string)
	for _, name := range pkg.Scope().Names() {
		tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok || !tn.Exported() || tn.IsAlias() {
			continue
		}
		if b, ok := tn.Type().Underlying().(*types.Basic); !ok || b.Kind() != types.String {
			continue
		}
		if consts := constsOf(pkg, tn.Type()); len(consts) > 0 {
			out[name] = consts
		}
	}
	return out
}

func constsOf(pkg *types.Package, typ types.Type) []string {
	var out []string
	for _, name := range pkg.Scope().Names() {
		c, ok := pkg.Scope().Lookup(name).(*types.Const)
		if ok && types.Identical(c.Type(), typ) && c.Val().Kind() == constant.String {
			out = append(out, constant.StringVal(c.Val()))
		}
	}
	slices.Sort(out)
	return out
}

// Match checks each enum of got (its values by its name) against the
// enum of the same name in want, or, for a name want does not have,
// otherwise's entry: the values must be the same, in any order; a nil
// entry says the enum is checked elsewhere. An enum of got named in
// neither fails t, so a new enum is checked as soon as its counterpart
// exists, and not silently passed over; so does an entry of otherwise
// that got does not have. what names got's side in the messages.
func Match(t *testing.T, what string, got, want, otherwise map[string][]string) {
	t.Helper()
	for name := range otherwise {
		if _, ok := got[name]; !ok {
			t.Errorf("the table names %s, which is no enum of %s", name, what)
		}
	}
	for name, values := range got {
		t.Run(name, func(t *testing.T) {
			w, ok := otherwise[name]
			if !ok {
				w, ok = want[name]
			}
			switch {
			case !ok:
				t.Fatalf("%s's enum %s has no counterpart of that name, nor a line in the test's table", what, name)
			case w == nil:
				return
			case len(w) == 0:
				t.Fatalf("%s's enum %s: its counterpart has no values", what, name)
			}
			g, w := slices.Sorted(slices.Values(values)), slices.Sorted(slices.Values(w))
			if !slices.Equal(g, w) {
				t.Errorf("%s's enum %s is %q, want %q", what, name, g, w)
			}
		})
	}
}
