// Command client shows the statusclient package at work: it lists an
// organization's projects (page by page, go-github style), its open
// invoices (with an iterator), a fresh download link for every deliverable
// that has a file, and what is left of the organization's rate budget.
//
//	go run ./examples/client -base-url http://localhost:8080/v1 -key "$STATUS_API_KEY"
//
// The key may also come from the STATUS_API_KEY environment variable, which
// keeps it out of the shell history and the process list.
package main
