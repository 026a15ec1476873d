package redoc_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusapi/internal/redoc"
)

// TestPinned checks the embedded bundle against its recorded version and
// checksum, in the code and in README.txt, so that an update cannot change
// one without the others.
func TestPinned(t *testing.T) {
	is := is.New(t)
	sum := sha256.Sum256(redoc.Standalone())
	is.Equal(hex.EncodeToString(sum[:]), redoc.SHA256) // the file is the pinned one

	readme, err := os.ReadFile("README.txt")
	is.NoErr(err)
	is.True(strings.Contains(string(readme), "\nversion: "+redoc.Version+"\n"))   // README.txt names the version
	is.True(strings.Contains(string(readme), "\nsha256: "+redoc.SHA256+"\n"))     // and the checksum
	is.True(strings.Contains(string(redoc.Standalone()), `="`+redoc.Version+`"`)) // the bundle's own version constant agrees
}

// TestServed checks that the bundle as served names no other origin to
// load from: only the logo's URL is changed.
func TestServed(t *testing.T) {
	is := is.New(t)
	in, out := string(redoc.Standalone()), string(redoc.Served())
	is.True(strings.Contains(in, "https://cdn.redoc.ly/"))                                    // the published bundle loads its logo from Redocly's CDN
	is.True(!strings.Contains(out, "https://cdn.redoc.ly/"))                                  // the served one does not
	is.Equal(len(in)-len(out), len(`https://cdn.redoc.ly/redoc/logo-mini.svg`)-len(`data:,`)) // and nothing else changed
}
