// Package statusclient is a typed Go client for the /v1 Client Project
// Status API (its wire format is the OpenAPI document in package openapi),
// shaped after go-github:
//
//   - One method per route, returning the value, a *Response and an error:
//     the Response carries what every answer of the API says besides its
//     body: the rate-limit figures (Response.Rate), the paging of a list
//     (Response.Meta, Response.NextPage), the ETag and the request id.
//   - Every list takes an options type that embeds ListOptions (Page,
//     Limit); each list has an All... iterator that walks every page.
//   - Errors are *Error values carrying a typed ErrorCode (see ErrorCodeOf),
//     the HTTP status, the request id and the Response.
//   - A bounded retry on 429 and 503 that honours Retry-After, and
//     conditional list calls (IfNoneMatch, answered with ErrNotModified) for
//     cheap polling.
//
// It depends on the standard library only, and on package option of this
// module (the options policy and its error, itself standard library only).
//
//	c := statusclient.New("https://portal.example.com/api/v1", apiKey)
//	for inv, err := range c.AllInvoices(ctx, statusclient.InvoiceListOptions{Status: statusclient.InvoiceOpen}) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(inv.Number, inv.AmountDue, inv.Currency)
//	}
//
// # Changes
//
// Every item has an UpdatedAt, which the server sets from its own clock
// whenever a write changes what a client sees. Every list options type has
// an UpdatedSince: when it is not zero, the list holds only the items with
// UpdatedAt at or after it, ordered by UpdatedAt ascending, then ID, and
// Meta.Total counts them. Each page of such a list, and each page of
// deletions, carries Meta.SyncedThrough: every write the page could not
// see yet is stamped at or after it, and Meta.Next: the ListOptions.After
// of the items that follow, which never skips an item that kept its place
// (a walk by Page can). Walk by Next to the end, then ask again from the
// smallest SyncedThrough of the pages you walked, not from the largest
// UpdatedAt you saw (a transaction that commits late can carry an earlier
// one), and expect some items once more: the bound is inclusive (upsert
// by id). The All... iterators walk such lists by Next.
// UpdatedSince is sent as the contract's timestamps are
// written, 2006-01-02T15:04:05Z: in UTC, its fraction of a second dropped
// (which can only widen the result).
//
// What disappeared is not in the lists: ListDeletions (and AllDeletions)
// names it, by type and id, from a time on. A time older than the server
// keeps (at least 30 days) is an error wrapping ErrResyncRequired: load
// everything again.
//
// Client.Sync does all of this: it keeps a Replica (plain maps by id)
// equal to what the server shows the key, polling from where it left off:
//
//	var r statusclient.Replica
//	for range time.Tick(time.Minute) {
//		if _, err := c.Sync(ctx, &r); err != nil {
//			log.Print(err) // the next Sync goes on from where this one stopped
//		}
//	}
//
// # Options
//
// New takes Option values, the module's one form of options, set on top of
// the defaults with the module's one policy (package
// [github.com/clientstatus/clientstatus/option]):
//
//   - A nil Option is ignored.
//   - A zero value (0, "", nil) given to an option means the default that
//     its documentation names, so a caller can pass a setting of its own
//     configuration through unset.
//   - A value that no default stands for (a negative count or duration) is
//     an *option.Error naming the option, as in "statusclient: WithRetry:
//     maxAttempts -1 is negative": New panics with it, as it is a
//     programming error, and Validate returns it.
//
// The base URL is not an option but data, perhaps from a configuration
// file: a bad one does not panic, every call returns the error (see New).
//
// A Client is safe for concurrent use.
package statusclient
