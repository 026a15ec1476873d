// Package ratelimittest is the conformance suite that a PlanLimiter passes
// whatever its ratelimit.Counter: each plan's budget, exactly, even under
// concurrent requests; one budget per organization, shared by its keys;
// unlimited plans; refused requests that cost nothing; a Refund that gives
// back exactly one request and never makes credit; the Decision's figures;
// and a Peek that reads the budget without spending it.
//
// A Counter's package runs it from its own tests:
//
//	func TestConformance(t *testing.T) {
//		ratelimittest.Run(t, func(t *testing.T, opts ...ratelimit.Option) *ratelimit.PlanLimiter {
//			return ratelimit.New(newCounter(t), opts...)
//		})
//	}
//
// The suite uses only the public API and real time: a counter's windows
// must last the Period given (a minute here), and the suite never waits
// for one to end.
package ratelimittest
