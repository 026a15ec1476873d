// Package webhooktest measures what a webhook dispatcher costs a store
// (its goroutines as organizations with endpoints come and go, and the
// store calls and time of one pass), and holds the cases of what a
// portal's settings pages do with an endpoint (Portal). The webhook
// package runs both on memstore.Store, bunstore on PostgreSQL.
package webhooktest
