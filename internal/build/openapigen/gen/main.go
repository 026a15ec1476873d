// Command gen writes the OpenAPI document of package statusapi's routes
// to the file its argument names (go generate ./statusapi).
package main

import (
	"fmt"
	"os"

	"github.com/clientstatus/clientstatus/internal/apidoc"
	"github.com/clientstatus/clientstatus/internal/build/openapigen"
	_ "github.com/clientstatus/clientstatus/statusapi" // sets apidoc.Describe
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen FILE")
		os.Exit(2)
	}
	doc, err := openapigen.Generate(apidoc.Describe())
	if err == nil {
		err = os.WriteFile(os.Args[1], doc, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapigen:", err)
		os.Exit(1)
	}
}
