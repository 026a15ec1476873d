// Package oasdiff holds the pinned oasdiff tool that .ci/breaking runs, and
// the tests that show the check fails on a breaking change of the wire and
// passes an additive one. It is a module of its own so that the library's
// go.mod does not require oasdiff.
package oasdiff
