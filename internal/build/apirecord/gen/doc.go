// Command gen writes api/v1.txt, the record of the module's exported Go
// API, from the code (go generate at the module's root). It refuses to drop
// a recorded line unless CHANGELOG.md records it as breaking (apirecord.Allowed).
package main
