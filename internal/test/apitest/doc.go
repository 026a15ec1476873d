// Package apitest builds the status API on in-memory parts for the
// module's tests: one memstore.Store, a key store that reads its
// organizations, a limiter, a file source, one settable clock shared by
// all of them, a log buffer, and API keys by name. Every test that needs
// a running handler builds it here, so that a change to how the parts are
// wired is made once.
//
//	a := apitest.New(t)
//	a.Org("org_a", store.PlanStarter)
//	a.Mint("a", "org_a")
//	res := a.Do("GET", "/v1/projects", "a")
//
// A test whose parts are not an API's (stores on PostgreSQL, a resolver
// or limiter of its own) builds its handler with Handler and its requests
// with NewRequest. The module's tests call statusapi.New nowhere else,
// but where New itself is tested (its argument checks, its warning
// without a signing key) and in code that shows how to call it (the
// runnable examples, the README's snippets).
package apitest
