// Package mounting holds docs/library.md's "Mounting" snippets for routers
// other than net/http's (chi, echo), compiled and run by its tests. It is
// a module of its own, so that chi and echo never become dependencies of
// github.com/clientstatus/clientstatus: .ci/run vets and tests it apart,
// and the root's readme_test.go checks that the docs show these
// functions word for word.
package mounting
