// Package eventtest is a memstore.Store with events a test adds itself
// (store.Events), for the tests of the event feed and stream in statusapi
// and statusclient, apart from how a store makes its events.
package eventtest
