// Package apirecord writes and compares the record of the module's exported
// Go API (api/v1.txt): one line per exported name and signature, as the Go
// project's api/go1.*.txt. The root test holds the code to the record; the
// command in gen writes it (go generate).
package apirecord
