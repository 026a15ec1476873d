package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/clientstatus/clientstatus/internal/build/apirecord"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "apirecord:", err)
		os.Exit(1)
	}
}

func run() error {
	pkgs, err := apirecord.Packages(".")
	if err != nil {
		return err
	}
	current, err := apirecord.Record(".", pkgs)
	if err != nil {
		return err
	}
	old, err := os.ReadFile(apirecord.File)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	changelog, err := os.ReadFile("CHANGELOG.md")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := apirecord.Check(apirecord.Parse(old), current, string(changelog)); errors.Is(err, apirecord.ErrBreaking) && len(old) > 0 {
		return err
	}
	return os.WriteFile(apirecord.File, apirecord.Format(current), 0o644)
}
