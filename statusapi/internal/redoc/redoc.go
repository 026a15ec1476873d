// Package redoc embeds Redoc's standalone bundle (the npm package redoc,
// bundles/redoc.standalone.js, committed unchanged), the renderer of the
// API reference page, so that the handler serves every asset of the page
// itself and the build needs no npm. README.txt says where the file comes
// from and how to update it (.ci/update-redoc).
package redoc

import _ "embed"

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
