// Package wake keeps the readers that wait for an organization's news:
// the watchers of store.Events.WatchEvents, on memstore.Store (woken by its
// writes) and on bunstore (woken by PostgreSQL notifications).
package wake
