// Package eventfake is a store.Events for the tests of what reads events
// (webhooks), while the stores' own implementation is being written.
package eventfake
