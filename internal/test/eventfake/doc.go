// Package eventfake is a store.Events whose events a test adds itself, for
// the tests of what reads events (webhooks, and through package eventtest
// the event feed and stream), apart from how a store makes its events.
package eventfake
