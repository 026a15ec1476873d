// Command endpoints fails when an operation of the base OpenAPI document
// (a path and method) is missing from the revision, deprecated or not:
// within /v1 nothing goes away, while oasdiff stays silent about a
// deprecated operation removed after its sunset.
//
// Usage: go run ./endpoints BASE REVISION
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
)

var methods = []string{"get", "head", "post", "put", "patch", "delete", "options", "trace"}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: endpoints BASE REVISION")
		os.Exit(2)
	}
	base, err := operations(os.Args[1])
	if err == nil {
		var revision map[string]bool
		revision, err = operations(os.Args[2])
		if err == nil {
			var missing []string
			for op := range base {
				if !revision[op] {
					missing = append(missing, op)
				}
			}
			sort.Strings(missing)
			for _, op := range missing {
				fmt.Printf("error\t[endpoint-removed] %s is in the base and not in the revision\n", op)
			}
			if len(missing) > 0 {
				os.Exit(1)
			}
			return
		}
	}
	fmt.Fprintln(os.Stderr, err)
	os.Exit(2)
}

// operations reads an OpenAPI document and answers its operations as
// "METHOD path".
func operations(path string) (map[string]bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ops := map[string]bool{}
	for p, item := range d.Paths {
		for m := range item {
			if slices.Contains(methods, m) {
				ops[fmt.Sprintf("%s %s", m, p)] = true
			}
		}
	}
	return ops, nil
}
