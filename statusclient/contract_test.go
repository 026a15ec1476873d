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

func TestStatusEnumsAreTheStores(t *testing.T) {
	tests := []struct {
		client reflect.Type
		store  []string
	}{
		{reflect.TypeFor[statusclient.ProjectStatus](), strs(store.ProjectStatuses)},
		{reflect.TypeFor[statusclient.MilestoneStatus](), strs(store.MilestoneStatuses)},
		{reflect.TypeFor[statusclient.DeliverableStatus](), strs(store.DeliverableStatuses)},
		{reflect.TypeFor[statusclient.InvoiceStatus](), strs(store.InvoiceStatuses)},
		{reflect.TypeFor[statusclient.ThreadStatus](), strs(store.ThreadStatuses)},
		{reflect.TypeFor[statusclient.AuthorSide](), strs(store.AuthorSides)},
		{reflect.TypeFor[statusclient.AboutType](), strs(aboutKinds())},
		{reflect.TypeFor[statusclient.DeletionType](), strs(store.Kinds)},
	}
	for _, tt := range tests {
		t.Run(tt.client.Name(), func(t *testing.T) {
			is := is.New(t)
			want := slices.Sorted(slices.Values(tt.store))
			is.True(len(want) > 0)                 // the store lists the states
			is.Equal(constsOf(t, tt.client), want) // the client's constants are the store's states
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
// in typ's package, found by type-checking the package's sources (a
// constant whose type is implicit, as in an iota group, counts too). The
// package must be in this module, whose root is the parent directory.
func constsOf(t *testing.T, typ reflect.Type) []string {
	t.Helper()
	self := reflect.TypeFor[statusclient.Client]().PkgPath()
	module := strings.TrimSuffix(self, "/statusclient")
	rel, ok := strings.CutPrefix(typ.PkgPath(), module+"/")
	if !ok {
		t.Fatalf("%s is not a package of module %s", typ.PkgPath(), module)
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
	pkg, err := conf.Check(typ.PkgPath(), fset, files, nil)
	if err != nil {
		t.Fatalf("type-checking %s: %v", typ.PkgPath(), err)
	}
	named, ok := pkg.Scope().Lookup(typ.Name()).(*types.TypeName)
	if !ok {
		t.Fatalf("no type %s in %s", typ.Name(), typ.PkgPath())
	}
	var out []string
	for _, name := range pkg.Scope().Names() {
		c, ok := pkg.Scope().Lookup(name).(*types.Const)
		if ok && types.Identical(c.Type(), named.Type()) {
			out = append(out, constant.StringVal(c.Val()))
		}
	}
	slices.Sort(out)
	return out
}

// exportData returns the lookup of the gc importer: the export data of
// the packages that statusclient and envelope import, this module's (package
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
			out, err = exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}", ".", "../envelope").Output()
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
