package main

import (
	"fmt"
	"os"

	"github.com/clientstatus/clientstatus/internal/apidoc"
	"github.com/clientstatus/clientstatus/internal/build/openapigen"
	_ "github.com/clientstatus/clientstatus/statusapi" // sets apidoc.Describe
)

func main() {
	doc, err := openapigen.Generate(apidoc.Describe())
	if err == nil && len(os.Args) != 2 {
		err = fmt.Errorf("usage: gen FILE")
	}
	if err == nil {
		err = os.WriteFile(os.Args[1], doc, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapigen:", err)
		os.Exit(1)
	}
}
