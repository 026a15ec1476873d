package apirecord

import (
	"bytes"
	"errors"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Module is the module whose API is recorded.
const Module = "github.com/clientstatus/clientstatus"

// File is the record's path from the module's root.
const File = "api/v1.txt"

// Packages lists the import paths whose API is recorded: every package of
// the module in dir except internal/, examples/ and tools/ (and commands).
func Packages(dir string) ([]string, error) {
	out, err := goList(dir, "-f", "{{if ne .Name \"main\"}}{{.ImportPath}}{{end}}", "./...")
	if err != nil {
		return nil, err
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p, Module), "/")
		if rel == "internal" || strings.HasPrefix(rel, "internal/") || strings.Contains(rel, "/internal/") ||
			strings.HasPrefix(rel, "examples/") || strings.HasPrefix(rel, "tools/") {
			continue
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// Record answers the sorted record of the packages' exported API, read from
// the export data the go command builds in dir.
func Record(dir string, pkgs []string) ([]string, error) {
	args := append([]string{"-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}"}, pkgs...)
	out, err := goList(dir, args...)
	if err != nil {
		return nil, err
	}
	exports := map[string]string{}
	for line := range strings.Lines(string(out)) {
		imp, export, _ := strings.Cut(strings.TrimSpace(line), "=")
		exports[imp] = export
	}
	lookup := func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", lookup)
	var lines []string
	for _, path := range pkgs {
		pkg, err := imp.Import(path)
		if err != nil {
			return nil, fmt.Errorf("apirecord: %s: %w", path, err)
		}
		lines = append(lines, describe(pkg)...)
	}
	slices.Sort(lines)
	return slices.Compact(lines), nil
}

func goList(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

// name is a package's name in the record: its path inside the module.
func name(path string) string {
	if path == Module {
		return "clientstatus"
	}
	return strings.TrimPrefix(path, Module+"/")
}

// describe answers the record's lines of one package.
func describe(pkg *types.Package) []string {
	qual := func(p *types.Package) string {
		if p == pkg {
			return ""
		}
		return name(p.Path())
	}
	str := func(t types.Type) string { return types.TypeString(t, qual) }
	prefix := "pkg " + name(pkg.Path()) + ", "
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, prefix+fmt.Sprintf(format, args...)) }
	scope := pkg.Scope()
	for _, n := range scope.Names() {
		obj := scope.Lookup(n)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			add("const %s %s = %s", n, str(obj.Type()), obj.Val().ExactString())
		case *types.Var:
			add("var %s %s", n, str(obj.Type()))
		case *types.Func:
			sig := obj.Type().(*types.Signature)
			add("func %s%s%s", n, typeParams(sig.TypeParams(), str), signature(sig, str))
		case *types.TypeName:
			typeLines(obj, str, add)
		}
	}
	return lines
}

func typeLines(obj *types.TypeName, str func(types.Type) string, add func(string, ...any)) {
	n := obj.Name()
	if obj.IsAlias() {
		add("type %s = %s", n, str(types.Unalias(obj.Type())))
		return
	}
	named, ok := obj.Type().(*types.Named)
	if !ok {
		return
	}
	head := n + typeParams(named.TypeParams(), str)
	switch u := named.Underlying().(type) {
	case *types.Struct:
		add("type %s struct", head)
		for f := range u.Fields() {
			switch {
			case !f.Exported():
			case f.Embedded():
				add("type %s struct, embedded %s", n, str(f.Type()))
			default:
				add("type %s struct, %s %s", n, f.Name(), str(f.Type()))
			}
		}
	case *types.Interface:
		var names []string
		for m := range u.Methods() {
			if m.Exported() {
				names = append(names, m.Name())
				add("type %s interface, %s%s", n, m.Name(), signature(m.Type().(*types.Signature), str))
			} else {
				names = append(names, "unexported methods")
			}
		}
		slices.Sort(names)
		add("type %s interface { %s }", head, strings.Join(slices.Compact(names), ", "))
	default:
		add("type %s %s", head, str(u))
	}
	for m := range named.Methods() {
		if !m.Exported() {
			continue
		}
		recv := n
		if _, ptr := m.Type().(*types.Signature).Recv().Type().(*types.Pointer); ptr {
			recv = "*" + n
		}
		add("method (%s) %s%s", recv, m.Name(), signature(m.Type().(*types.Signature), str))
	}
}

// typeParams writes [T constraint, ...], or nothing for a non-generic name.
func typeParams(tps *types.TypeParamList, str func(types.Type) string) string {
	if tps.Len() == 0 {
		return ""
	}
	var parts []string
	for tp := range tps.TypeParams() {
		parts = append(parts, tp.Obj().Name()+" "+str(tp.Constraint()))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// signature writes a signature's parameter and result types, without
// names: renaming a parameter changes no caller.
func signature(sig *types.Signature, str func(types.Type) string) string {
	var b strings.Builder
	b.WriteString("(")
	for i, p := range slices.Collect(sig.Params().Variables()) {
		if i > 0 {
			b.WriteString(", ")
		}
		if sig.Variadic() && i == sig.Params().Len()-1 {
			b.WriteString("..." + str(p.Type().(*types.Slice).Elem()))
		} else {
			b.WriteString(str(p.Type()))
		}
	}
	b.WriteString(")")
	switch sig.Results().Len() {
	case 0:
	case 1:
		b.WriteString(" " + str(sig.Results().At(0).Type()))
	default:
		var rs []string
		for r := range sig.Results().Variables() {
			rs = append(rs, str(r.Type()))
		}
		b.WriteString(" (" + strings.Join(rs, ", ") + ")")
	}
	return b.String()
}

// header heads the record; Parse skips it as every line starting with #.
const header = "# Code generated by go run ./internal/build/apirecord/gen (go generate); DO NOT EDIT.\n" +
	"# The exported Go API of v1: lines may be added, never removed or changed (docs/compatibility.md).\n"

// Parse reads a record: its lines other than empty ones and comments.
func Parse(b []byte) []string {
	var lines []string
	for line := range strings.Lines(string(b)) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			lines = append(lines, line)
		}
	}
	return lines
}

// Format writes a record, one line each.
func Format(lines []string) []byte {
	return []byte(header + strings.Join(lines, "\n") + "\n")
}

// Diff answers the lines of current that recorded lacks (additions) and
// those of recorded that current lacks (removals and changes).
func Diff(recorded, current []string) (added, removed []string) {
	have := map[string]bool{}
	for _, l := range recorded {
		have[l] = true
	}
	now := map[string]bool{}
	for _, l := range current {
		now[l] = true
		if !have[l] {
			added = append(added, l)
		}
	}
	for _, l := range recorded {
		if !now[l] {
			removed = append(removed, l)
		}
	}
	return added, removed
}

// majorHeading matches a Keep a Changelog version heading, "## [2.0.0]".
var majorHeading = regexp.MustCompile(`(?m)^## \[v?(\d+)\.\d+\.\d+[^\]]*\]`)

// NewMajor reports whether changelog has a section for a major version
// after 1: every breaking change recorded there is allowed.
func NewMajor(changelog string) bool {
	for _, m := range majorHeading.FindAllStringSubmatch(changelog, -1) {
		if major, err := strconv.Atoi(m[1]); err == nil && major > 1 {
			return true
		}
	}
	return false
}

// unreleasedBreaking returns the "### Breaking" subsection of changelog's
// "## [Unreleased]" section: the breaking changes of the untagged version,
// which a release must then tag as a new major version.
func unreleasedBreaking(changelog string) string {
	_, rest, ok := strings.Cut(changelog, "\n## [Unreleased]")
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "\n## ["); i >= 0 {
		rest = rest[:i]
	}
	_, rest, ok = strings.Cut(rest, "\n### Breaking")
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "\n### "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// Identifier is the name a changelog entry uses for a record line's
// exported name: "store.Store" for every line of the interface Store of
// package store, "memstore.Store" for a method of *Memory.
func Identifier(line string) string {
	pkg, decl, ok := strings.Cut(strings.TrimPrefix(line, "pkg "), ", ")
	if !ok {
		return ""
	}
	pkg = pkg[strings.LastIndex(pkg, "/")+1:]
	fields := strings.Fields(decl)
	if len(fields) < 2 {
		return ""
	}
	name := fields[1]
	if fields[0] == "method" && len(fields) > 2 {
		name = strings.Trim(fields[1], "(*)")
	}
	if i := strings.IndexAny(name, "[(,"); i >= 0 {
		name = name[:i]
	}
	return pkg + "." + name
}

// Allowed reports whether changelog records the removal or change of line
// as breaking: under a new major version, or named (as Identifier gives it,
// in backquotes, alone or with a member: `store.Store.ListX`) under
// "### Breaking" of the Unreleased section, or its package's move recorded
// there ("`bunstore` moved to `bunstore`").
func Allowed(changelog, line string) bool {
	if NewMajor(changelog) {
		return true
	}
	id := Identifier(line)
	breaking := unreleasedBreaking(changelog)
	if pkg, _, ok := strings.Cut(strings.TrimPrefix(line, "pkg "), ", "); ok && strings.Contains(breaking, "`"+pkg+"` moved to `") {
		return true
	}
	return id != "" && (strings.Contains(breaking, "`"+id+"`") || strings.Contains(breaking, "`"+id+"."))
}

// ErrBreaking is wrapped by Check's error for a removal or a change.
var ErrBreaking = errors.New("breaking change of the Go API")

// Check compares the recorded API with the current one. A removal or
// change is an error wrapping ErrBreaking unless changelog records it as
// breaking (Allowed); an addition, or an allowed removal, is an error that
// asks to regenerate the record. Equal records answer nil.
func Check(recorded, current []string, changelog string) error {
	added, removed := Diff(recorded, current)
	if len(added) == 0 && len(removed) == 0 {
		return nil
	}
	var b strings.Builder
	var refused []string
	for _, l := range removed {
		if !Allowed(changelog, l) {
			refused = append(refused, l)
		}
	}
	if len(refused) > 0 {
		for _, l := range refused {
			fmt.Fprintf(&b, "\t- %s\n", l)
		}
		return fmt.Errorf("%w: %d line(s) of %s removed or changed:\n%s"+
			"a removal or a signature change breaks callers: restore it, or record it as breaking in CHANGELOG.md, "+
			"naming it in backquotes (`%s`) under \"### Breaking\" of [Unreleased] (the next tag is then a new major version, "+
			"module path .../v2), then run go generate",
			ErrBreaking, len(refused), File, b.String(), Identifier(refused[0]))
	}
	fmt.Fprintf(&b, "%s is out of date: run go generate (additions are allowed", File)
	if len(removed) > 0 {
		b.WriteString("; the removals are recorded as breaking in CHANGELOG.md")
	}
	b.WriteString("):\n")
	for _, l := range removed {
		fmt.Fprintf(&b, "\t- %s\n", l)
	}
	for _, l := range added {
		fmt.Fprintf(&b, "\t+ %s\n", l)
	}
	return errors.New(strings.TrimRight(b.String(), "\n"))
}
