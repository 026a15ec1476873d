// Package webhooktest measures what a webhook dispatcher costs a store:
// its goroutines as organizations with endpoints come and go, and the
// store calls and time of one pass. The webhook package runs it on
// memstore.Store, bunstore on PostgreSQL.
package webhooktest
