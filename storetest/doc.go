// Package storetest is the conformance suite that every store.Store must
// pass. Each rule is one case: the rules that hold for every kind of item
// run once per kind (the table kindCases), the rest once.
//
// An implementation runs it from its own tests with a Subject: the store,
// its write side and the clock it dates writes from, which the suite moves
// instead of sleeping:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) storetest.Subject {
//			clock := newManualClock()
//			return clocked{memstore.New(memstore.WithClock(clock.Now)), clock}
//		})
//	}
//
// A store of a portal's own that has only the read side and a writer
// (Reader, 27 methods) runs the read part, RunRead, with its clock as an
// option (WithClock); the rest of the suite asks for a Subject.
//
// The suite seeds every subtest through the Subject, with times at second
// precision, and never assumes an error message. Unimplemented is the base
// of a partial fake for handler tests. The rules it checks: docs/store.md.
package storetest
