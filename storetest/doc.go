// Package storetest is the conformance suite of store.Store, in parts a
// store opts into, each a function that asks for the interfaces it tests
// and no more:
//
//	RunRead        Reader (store.Store, store.Writer): 27 methods
//	RunChanges     Changer (Reader, store.Deleter, store.Organizations): 33
//	RunThreads     ThreadStore (Reader, store.Deleter, store.ThreadWriter): 36
//	RunWebhooks    WebhookStore (store.Writer, store.Deleter,
//	               store.WebhookEndpoints, store.WebhookQueue): 21
//	RunRequestLog  RequestLogStore (store.Writer, store.Deleter,
//	               store.RequestLog): 14
//
// Run runs every part, on a Subject. Each rule is one case: the rules that
// hold for every kind of item run once per kind (the table kindCases), in
// RunRead and RunChanges for the kinds of store.Writer, in RunThreads for
// threads and messages.
//
// The clock the store dates its writes from is an option, WithClock: the
// suite reads it, and moves it instead of sleeping. RunChanges and
// RunThreads need one they can move:
//
//	func TestConformance(t *testing.T) {
//		clock := newManualClock()
//		storetest.Run(t, func(t *testing.T) storetest.Subject {
//			return memstore.New(memstore.WithClock(clock.Now))
//		}, storetest.WithClock(clock.Now, clock.Advance))
//	}
//
// The suite seeds every subtest through the store's writers, with times at
// second precision, and never assumes an error message. Unimplemented is
// the base of a partial fake for handler tests. The rules it checks:
// docs/store.md.
package storetest
