package statusapi

import (
	"encoding/binary"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/clientstatus/clientstatus/envelope"
)

// fastListTypes are the wire types whose pages writeFastList encodes
// (each has appendJSON), with the check FuzzJSONList runs on a page of
// them. TestFastListTypesAreFuzzed holds it to the source.
var fastListTypes = map[string]func(*testing.T, *fuzzInput){
	"invoice": fuzzFastList[invoice],
}

// FuzzJSONList holds writeFastList to envelope.WriteList (encoding/json)
// over the wire types it encodes: a page of items whose every field,
// found by reflection, and the meta are read from the fuzzer's bytes must
// be written to the same bytes and headers, or declined (an expanded
// project) with nothing written.
func FuzzJSONList(f *testing.F) {
	hostile := []string{"", `"`, `\`, `\"`, "\n\r\t\b\f", "\x00", "\x1f\x7f", "<script>&amp;</script>", "\u2028\u2029",
		"\xff", "\xc3", "\xed\xa0\x80", "\xf4\x90\x80\x80", "é日本🙂", "\ufffd", "INV-0042", "2026-01-02T03:04:05Z"}
	for sel := range len(fastListTypes) {
		for _, s := range hostile {
			f.Add(fuzzSeed(byte(sel), 2, s))
		}
		f.Add(fuzzSeed(byte(sel), 3, hostile...))
	}
	names := slices.Sorted(maps.Keys(fastListTypes))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzInput{data: data}
		fastListTypes[names[int(in.byte())%len(names)]](t, in)
	})
}

// fuzzSeed is an input of FuzzJSONList: the type's selector, the number of
// items, then the strings in turn, each with its length before it; every
// other value reads as zero past the end, so the strings fill the fields
// in order.
func fuzzSeed(sel, items byte, strs ...string) []byte {
	b := []byte{sel, items}
	for range 8 * int(items) {
		for _, s := range strs {
			b = append(b, byte(min(len(s), 255)))
			b = append(b, s[:min(len(s), 255)]...)
		}
	}
	return b
}

// fuzzFastList reads a page of W and its meta from in and checks that
// writeFastList writes it as encoding/json does.
func fuzzFastList[W any](t *testing.T, in *fuzzInput) {
	items := make([]W, int(in.byte())%5)
	expanded := false
	for i := range items {
		expanded = fillWire(t, reflect.ValueOf(&items[i]).Elem(), in) || expanded
	}
	meta := envelope.Meta{Page: int(in.int64()), PerPage: int(in.int64()), Total: int(in.int64())}
	if in.byte()%2 == 1 {
		meta.SyncedThrough = in.string()
	}
	switch in.byte() % 3 {
	case 1:
		meta.Next = &envelope.Cursor{}
	case 2:
		meta.Next = &envelope.Cursor{After: in.string()}
	}
	if written := writesAsEncodingJSON(t, items, meta); written == expanded {
		t.Fatalf("writeFastList wrote %v for a page with an expanded project %v", written, expanded)
	}
}

// fillWire sets every field of the wire struct v from in, and reports
// whether it set an expanded project (which the fast encoder leaves to
// encoding/json). A field of a type it does not know fails t: a new
// field of a wire type is fuzzed, or the fuzz target says it is not.
func fillWire(t *testing.T, v reflect.Value, in *fuzzInput) (expandedSet bool) {
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Type() {
		case reflect.TypeFor[string]():
			f.SetString(in.string())
		case reflect.TypeFor[*string]():
			if in.byte()%3 != 0 {
				s := in.string()
				f.Set(reflect.ValueOf(&s))
			}
		case reflect.TypeFor[int64](), reflect.TypeFor[int]():
			f.SetInt(in.int64())
		case reflect.TypeFor[bool]():
			f.SetBool(in.byte()%2 == 1)
		case reflect.TypeFor[expanded]():
			if in.byte()%8 == 7 {
				f.Set(reflect.ValueOf(expanded{asked: true}))
				expandedSet = true
			}
		default:
			t.Fatalf("%s.%s is of type %s, which fillWire cannot fill: teach it, so that FuzzJSONList covers the field", v.Type(), v.Type().Field(i).Name, f.Type())
		}
	}
	return expandedSet
}

// fuzzInput reads values from the fuzzer's bytes; past their end every
// value is zero.
type fuzzInput struct{ data []byte }

func (in *fuzzInput) byte() byte {
	if len(in.data) == 0 {
		return 0
	}
	b := in.data[0]
	in.data = in.data[1:]
	return b
}

// string reads a length byte and that many bytes.
func (in *fuzzInput) string() string {
	n := min(int(in.byte()), len(in.data))
	s := string(in.data[:n])
	in.data = in.data[n:]
	return s
}

func (in *fuzzInput) int64() int64 {
	var b [8]byte
	n := copy(b[:], in.data)
	in.data = in.data[n:]
	return int64(binary.LittleEndian.Uint64(b[:]))
}

// TestFastListTypesAreFuzzed finds every type of the package with an
// appendJSON method (writeFastList's jsonAppender) in its source and
// fails unless FuzzJSONList fuzzes it.
func TestFastListTypesAreFuzzed(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "appendJSON" {
				continue
			}
			recv := fn.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			ident, ok := recv.(*ast.Ident)
			if !ok {
				t.Fatalf("%s: appendJSON on a receiver this test cannot name", fset.Position(fn.Pos()))
			}
			if _, ok := fastListTypes[ident.Name]; !ok {
				t.Errorf("%s: %s appends its own JSON but FuzzJSONList does not fuzz it: add it to fastListTypes", fset.Position(fn.Pos()), ident.Name)
			}
			found++
		}
	}
	if found != len(fastListTypes) {
		t.Errorf("%d types with appendJSON in the source, %d in fastListTypes", found, len(fastListTypes))
	}
}
