package statusclient_test

import (
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
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/store"
)

// The tests in this file pin the client's error codes and enums to the
// server's, so that neither side can gain or lose a value alone. The server's
// error catalogue is the set of constants of type envelope.Code, and the
// client's the constants of type statusclient.ErrorCode; both are read from
// the packages' sources, so there is no third list to keep in step. The
// enums are checked against the store's lists (store.ProjectStatuses...),
// which are what the server validates against.

func TestErrorCodesAreTheServers(t *testing.T) {
	is := is.New(t)
	server := constsOf(t, reflect.TypeFor[envelope.Code]())
	client := constsOf(t, reflect.TypeFor[statusclient.ErrorCode]())
	is.True(slices.Contains(server, string(envelope.NotFound)))         // the catalogue was read
	is.True(slices.Contains(client, string(statusclient.CodeNotFound))) // and the client's codes
	is.Equal(client, server)                                            // every code of the server's catalogue, and no other
}

// TestStatusEnumsAreTheStores checks every enum of the client (an
// exported string type with constants, found in the package's sources,
// not listed) against the server's: the store's type of the same name
// (ProjectStatus...), whose constants the store validates against, or, for
// the few named otherwise, what the table below says. A new resource's
// status enum is checked with no edit here, and an enum with no
// counterpart fails until it has one.
func TestStatusEnumsAreTheStores(t *testing.T) {
	client := enumsOf(t, reflect.TypeFor[statusclient.Client]().PkgPath())
	server := enumsOf(t, reflect.TypeFor[store.Kind]().PkgPath())
	otherwise := map[string][]string{
		"DeletionType": strs(store.Kinds),
		"AboutType":    strs(aboutKinds()),
		"ErrorCode":    nil, // envelope.Code's: TestErrorCodesAreTheServers
		"Expand":       nil, // a parameter's value, asked of the real handler in TestRealHandlerSingleItemsAndExpand
	}
	is.New(t).True(len(client) >= 8) // the enums were found
	for name := range otherwise {
		if _, ok := client[name]; !ok {
			t.Errorf("the table names %s, which is no enum of statusclient", name)
		}
	}
	for name, consts := range client {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			want, ok := otherwise[name]
			if !ok {
				want, ok = server[name]
			}
			if !ok {
				t.Fatalf("statusclient.%s has no type of that name in store, nor a line in this test", name)
			}
			if want == nil {
				return
			}
			want = slices.Sorted(slices.Values(want))
			is.True(len(want) > 0) // the store lists the states
			is.Equal(consts, want) // the client's constants are the store's states
		})
	}
}

// aboutKinds are the kinds of item the store lets a thread be about: those
// of store.Kinds that store.Thread.Validate accepts in About.
func aboutKinds() []store.Kind {
	var out []store.Kind
	for _, k := range store.Kinds {
		th := store.Thread{ID: "t", OrgID: "o", Status: store.ThreadOpen, About: &store.Ref{Kind: k, ID: "x"}}
		if th.Validate() == nil {
			out = append(out, k)
		}
	}
	return out
}

func strs[S ~string](vs []S) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// constsOf returns, sorted, the values of the constants of type typ declared
// in typ's package (see enumsOf).
func constsOf(t *testing.T, typ reflect.Type) []string {
	t.Helper()
	pkg := typeCheck(t, typ.PkgPath())
	named, ok := pkg.Scope().Lookup(typ.Name()).(*types.TypeName)
	if !ok {
		t.Fatalf("no type %s in %s", typ.Name(), typ.PkgPath())
	}
	return constsOfType(pkg, named.Type())
}

// enumsOf returns the enums of the package at path, by type name: the
// sorted values of the constants of each exported type whose underlying
// type is string and that has some.
func enumsOf(t *testing.T, path string) map[string][]string {
	t.Helper()
	pkg := typeCheck(t, path)
	out := make(map[string][]string)
	for _, name := range pkg.Scope().Names() {
		tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok || !tn.Exported() || tn.IsAlias() {
			continue
		}
		if b, ok := tn.Type().Underlying().(*types.Basic); !ok || b.Kind() != types.String {
			continue
		}
		if consts := constsOfType(pkg, tn.Type()); len(consts) > 0 {
			out[name] = consts
		}
	}
	return out
}

// constsOfType returns, sorted, the values of pkg's constants of type typ
// (a constant whose type is implicit, as in an iota group, counts too).
func constsOfType(pkg *types.Package, typ types.Type) []string {
	var out []string
	for _, name := range pkg.Scope().Names() {
		c, ok := pkg.Scope().Lookup(name).(*types.Const)
		if ok && types.Identical(c.Type(), typ) {
			out = append(out, constant.StringVal(c.Val()))
		}
	}
	slices.Sort(out)
	return out
}

// typeCheck type-checks the sources of the package at path, which must be
// in this module, whose root is the parent directory.
func typeCheck(t *testing.T, path string) *types.Package {
	t.Helper()
	self := reflect.TypeFor[statusclient.Client]().PkgPath()
	module := strings.TrimSuffix(self, "/statusclient")
	rel, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		t.Fatalf("%s is not a package of module %s", path, module)
	}
	dir := filepath.Join("..", filepath.FromSlash(rel))
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", exportData(t))}
	pkg, err := conf.Check(path, fset, files, nil)
	if err != nil {
		t.Fatalf("type-checking %s: %v", path, err)
	}
	return pkg
}

// exportData returns the lookup of the gc importer: the export data of
// the packages that statusclient, envelope and store import, this module's (package
// option) included, which the importer cannot find alone. One go list
// finds them all, the first time.
var exportData = func() func(t *testing.T) func(string) (io.ReadCloser, error) {
	var (
		once  sync.Once
		files map[string]string
		err   error
	)
	return func(t *testing.T) func(string) (io.ReadCloser, error) {
		t.Helper()
		once.Do(func() {
			var out []byte
			out, err = exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}", ".", "../envelope", "../store").Output()
			files = make(map[string]string)
			for _, line := range strings.Fields(string(out)) {
				path, file, _ := strings.Cut(line, "=")
				files[path] = file
			}
		})
		if err != nil {
			t.Skipf("go list -export: %v", err)
		}
		return func(path string) (io.ReadCloser, error) {
			file, ok := files[path]
			if !ok || file == "" {
				return nil, fmt.Errorf("no export data for %s", path)
			}
			return os.Open(file)
		}
	}
}()
