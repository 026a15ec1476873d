package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/clientstatus/clientstatus/internal/apidoc"
	"github.com/clientstatus/clientstatus/internal/build/openapigen"
	_ "github.com/clientstatus/clientstatus/statusapi" // sets apidoc.Describe
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "openapigen:", err)
		os.Exit(1)
	}
}

// run writes the document to openapi/openapi.json of the module the
// working directory is in.
func run() error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			return fmt.Errorf("no go.mod above the working directory")
		}
		root = parent
	}
	doc, err := openapigen.Generate(apidoc.Describe())
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(root, "openapi", "openapi.json"), doc, 0o644)
}
