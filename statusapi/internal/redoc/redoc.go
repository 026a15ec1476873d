package redoc

import (
	"bytes"
	_ "embed"
	"sync"
)

// Version is the version of the npm package redoc that Standalone comes
// from.
const Version = "2.5.4"

// SHA256 is the hex SHA-256 of Standalone: that of the file in the npm
// package, checked by the tests.
const SHA256 = "dcaf76612bc4a3fbcc923a8966dee2f6146a5f32e5ce1b6f02dd60cbbf89500b"

//go:embed redoc.standalone.js
var standalone []byte

// Standalone returns the bundle, minified JavaScript that renders a
// <redoc spec-url="..."> element of the page once loaded. The slice is
// shared: callers must not change it.
func Standalone() []byte { return standalone }

// logo is the one thing the bundle loads from another origin: the
// Redocly logo in the footer of the sidebar ("API docs by Redocly").
const logo = `src:"https://cdn.redoc.ly/redoc/logo-mini.svg"`

// Served returns the bundle as the handler serves it: Standalone with the
// logo's URL replaced by an empty data: URL, so that the page asks no
// other origin for anything (its Content-Security-Policy would block the
// request anyway, and report it). The image then fails to load, and Redoc
// hides an image that fails; the link text stays. The slice is shared:
// callers must not change it.
func Served() []byte { return served() }

var served = sync.OnceValue(func() []byte {
	if bytes.Count(standalone, []byte(logo)) != 1 {
		panic("redoc: the bundle does not reference the logo exactly once: check Served after an update")
	}
	return bytes.Replace(standalone, []byte(logo), []byte(`src:"data:,"`), 1)
})
