package openapigen

import (
	"cmp"
	"strings"

	"github.com/clientstatus/clientstatus/envelope"
)

// The headers of an error an organization's request may meet: its own, and the rate limit's.
var orgErrorHeaders = hs(orgHeaders, rateHeaders)

// stdError is a standard error response: an Error body answered with
// codes, whose status and words are theirs (envelope.Code), then tail.
type stdError struct {
	name    string // the response component
	codes   []envelope.Code
	tail    string   // what the response adds to the codes' words
	sep     string   // between the codes' words: " " when ""
	headers []string // the response's headers
	message string   // the example's message
	param   string   // the example's error.param
	// keyed says every keyed route may answer it.
	keyed bool
}

// errorResponses are the standard error responses.
var errorResponses = []stdError{
	{name: "BadRequest", codes: []envelope.Code{envelope.InvalidParameter}, headers: orgErrorHeaders, keyed: true,
		message: "status must be one of planned, in_progress, on_hold, completed, cancelled", param: "status"},
	{name: "Unauthorized", codes: []envelope.Code{envelope.Unauthorized}, tail: " Counts against no rate limit.", keyed: true,
		headers: hs(plainHeaders, []string{"WWW-Authenticate"}), message: "the API key is invalid, revoked or expired"},
	{name: "Forbidden", codes: []envelope.Code{envelope.Forbidden, envelope.InsufficientScope}, tail: " Counts against no rate limit.", keyed: true,
		headers: hs(plainHeaders, []string{"WWW-Authenticate"}), message: "API access needs an active retainer and API access enabled on the account; contact the service operator"},
	{name: "NotFound", codes: []envelope.Code{envelope.NotFound}, headers: orgErrorHeaders, message: "no such item"},
	{name: "MethodNotAllowed", codes: []envelope.Code{envelope.MethodNotAllowed},
		headers: hs(plainHeaders, []string{"Allow"}), message: "method POST is not allowed; use GET or HEAD"},
	{name: "FileNotAvailable", codes: []envelope.Code{envelope.FileNotAvailable}, headers: orgErrorHeaders, message: "this deliverable has no file attached"},
	{name: "TooManyRequests", codes: []envelope.Code{envelope.RateLimited}, tail: " Retry after `Retry-After` seconds.", keyed: true,
		headers: hs(orgErrorHeaders, []string{"Retry-After"}), message: "rate limit of 60 requests per minute reached; retry after the number of seconds in Retry-After"},
	{name: "Internal", codes: []envelope.Code{envelope.Internal}, headers: orgErrorHeaders, message: "internal error", keyed: true},
	{name: "Unavailable", codes: []envelope.Code{envelope.Unavailable}, tail: " Safe to retry, after `Retry-After` seconds (1).", keyed: true,
		headers: hs(orgErrorHeaders, []string{"Retry-After"}), message: "the service is temporarily unavailable; retry later"},
	{name: "LinkRejected", codes: []envelope.Code{envelope.LinkExpired, envelope.InvalidSignature}, sep: "; ",
		headers: plainHeaders, message: "the download link has expired; ask for a new one"},
}

// words is what e says: each code with its meaning, then e's tail.
func (e stdError) words() string {
	sep := cmp.Or(e.sep, " ")
	var parts []string
	for _, c := range e.codes {
		parts = append(parts, string(c)+": "+c.Means())
	}
	if sep != " " { // the words end a sentence only last
		for i := range parts[:len(parts)-1] {
			parts[i] = strings.TrimSuffix(parts[i], ".")
		}
	}
	return strings.Join(parts, sep) + e.tail
}

// status is the HTTP status of e's codes.
func (e stdError) status() int { return e.codes[0].Status() }

// response is e's response component.
func (e stdError) response() Obj {
	r := bodyResponse(e.words(), e.headers, "Error", errorExample(string(e.codes[0]), e.message, e.param))
	if e.name == "Forbidden" {
		r = refHeader(r, "WWW-Authenticate", "WWW-Authenticate-Scope")
	}
	return r
}

// errorNamed is the error response of that name.
func errorNamed(name string) stdError {
	for _, e := range errorResponses {
		if e.name == name {
			return e
		}
	}
	panic("openapigen: no error response " + name)
}

// standardResponses are the 304s and the error responses but a signed
// link's (fileResponses).
var standardResponses = func() Obj {
	out := O("NotModified", responseOf("Nothing changed since the `ETag` sent in `If-None-Match`. No body.",
		itemHeaders, nil))
	for _, e := range errorResponses {
		if e.name != "LinkRejected" {
			out = append(out, KV{e.name, e.response()})
		}
	}
	return append(out, KV{"NotModifiedUsage", responseOf("Nothing changed since the `ETag` sent in `If-None-Match`. No body, and no rate-limit headers.",
		hs(plainHeaders, validatorHeaders), nil)})
}()
