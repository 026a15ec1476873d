// Package statusclient is a typed Go client for the /v1 Client Project
// Status API, shaped after go-github: one method per route, returning the
// value, a *Response (rate budget, paging, ETag, request id) and an error;
// an All... iterator per list that walks every page; errors as *Error with
// a typed ErrorCode (ErrorCodeOf); a bounded retry on 429 and 503; and
// conditional list calls (IfNoneMatch, answered with ErrNotModified).
//
//	c := statusclient.New("https://portal.example.com/api/v1", apiKey)
//	for inv, err := range c.AllInvoices(ctx, statusclient.InvoiceListOptions{Status: statusclient.InvoiceOpen}) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(inv.Number, inv.AmountDue, inv.Currency)
//	}
//
// Every list takes UpdatedSince, and its pages carry Meta.SyncedThrough
// and Meta.Next; ListDeletions names what disappeared. Client.Sync uses
// them to keep a Replica (plain maps by id) equal to what the server shows
// the key. The rule they follow is in docs/sync.md; the client in brief in
// docs/go-client.md.
//
// Options follow the module's one policy (package option). The base URL is
// data, not an option: a bad one does not panic, every call returns the
// error. It depends on the standard library and package option only. A
// Client is safe for concurrent use.
package statusclient
