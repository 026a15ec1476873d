// Package statusclient is a typed Go client for the /v1 Client Project
// Status API (its wire format is the OpenAPI document in package openapi):
// one method per route, the contract's types, errors as *Error values
// carrying the code, the HTTP status and the request id, iterators over
// every page of a list, a bounded retry on 429 and 503 that honours
// Retry-After, and conditional list calls (IfNoneMatch, answered with
// ErrNotModified) for cheap polling.
//
// It depends on the standard library only.
//
//	c := statusclient.New("https://portal.example.com/api/v1", apiKey)
//	for inv, err := range c.AllInvoices(ctx, statusclient.InvoiceListOptions{Status: statusclient.InvoiceOpen}) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(inv.Number, inv.AmountDue, inv.Currency)
//	}
//
// # Options
//
// New takes Option values, the module's one form of options, set on top of
// the defaults with one rule for bad values:
//
//   - A zero value (0, "", nil) given to an option means the default that
//     its documentation names, so a caller can pass a setting of its own
//     configuration through unset.
//   - A value that no default stands for (a negative count or duration) is
//     a programming error: New panics with a message that names the option,
//     as in "statusclient: WithRetry: maxAttempts -1 is negative".
//
// The base URL is not an option but data, perhaps from a configuration
// file: a bad one does not panic, every call returns the error (see New).
//
// A Client is safe for concurrent use.
package statusclient
