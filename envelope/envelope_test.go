package envelope_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/envelope"
)

func TestCodeStatus(t *testing.T) {
	is := is.New(t)
	// The contract's table of error codes, row by row.
	want := map[envelope.Code]int{
		envelope.InvalidParameter:  400,
		envelope.Unauthorized:      401,
		envelope.Forbidden:         403,
		envelope.InsufficientScope: 403,
		envelope.LinkExpired:       403,
		envelope.InvalidSignature:  403,
		envelope.NotFound:          404,
		envelope.MethodNotAllowed:  405,
		envelope.FileNotAvailable:  409,
		envelope.RateLimited:       429,
		envelope.Internal:          500,
		envelope.Unavailable:       503,
	}
	for code, status := range want {
		is.Equal(code.Status(), status) // the contract's status for the code
	}
	listed := make(map[envelope.Code]int)
	for _, code := range envelope.Codes {
		listed[code] = code.Status()
	}
	is.Equal(len(envelope.Codes), len(listed)) // Codes lists each code once
	is.Equal(listed, want)                     // and the whole catalogue

	is.Equal(envelope.Code("SOMETHING_NEW").Status(), 500) // an unknown code is a bug, answered as one

	for _, code := range envelope.Codes {
		is.True(strings.HasSuffix(code.Means(), ".")) // each code says when it is answered, a sentence
	}
	is.Equal(envelope.Code("SOMETHING_NEW").Means(), "")
}

func TestWriteList(t *testing.T) {
	is := is.New(t)
	rec := httptest.NewRecorder()
	var none []string
	envelope.WriteList(rec, httptest.NewRequest("GET", "/v1/x", nil), none, envelope.Meta{Page: 3, PerPage: 20, Total: 41})
	is.Equal(rec.Code, 200)
	is.Equal(rec.Header().Get("Content-Type"), "application/json; charset=utf-8")
	is.Equal(rec.Body.String(), `{"data":[],"meta":{"page":3,"per_page":20,"total":41}}`+"\n") // a nil list is [], meta keeps snake_case
	is.Equal(rec.Header().Get("Content-Length"), strconv.Itoa(rec.Body.Len()))                 // the length of the body as written
}

func TestWriteItemKeepsURLsReadable(t *testing.T) {
	is := is.New(t)
	rec := httptest.NewRecorder()
	envelope.WriteItem(rec, httptest.NewRequest("GET", "/v1/x", nil), map[string]string{"url": "https://h/f?a=1&b=<2>"})
	is.Equal(rec.Body.String(), `{"data":{"url":"https://h/f?a=1&b=<2>"}}`+"\n") // no \u0026 in links
}

func TestWriteError(t *testing.T) {
	is := is.New(t)
	rec := httptest.NewRecorder()
	rec.Header().Set(envelope.RequestIDHeader, "req-1")
	envelope.WriteError(rec, httptest.NewRequest("GET", "/v1/x", nil), envelope.InvalidParam("limit", "limit must be a whole number from 1 to 100"))
	is.Equal(rec.Code, 400)
	is.Equal(rec.Body.String(), `{"error":{"code":"INVALID_PARAMETER","message":"limit must be a whole number from 1 to 100","param":"limit","request_id":"req-1"}}`+"\n")
	is.Equal(rec.Header().Get("WWW-Authenticate"), "") // only a 401 asks for credentials
}

func TestWriteErrorUnauthorized(t *testing.T) {
	is := is.New(t)
	rec := httptest.NewRecorder()
	envelope.WriteError(rec, httptest.NewRequest("GET", "/v1/x", nil), envelope.New(envelope.Unauthorized, "no key"))
	is.Equal(rec.Code, 401)
	is.Equal(rec.Header().Get("WWW-Authenticate"), "Bearer")
	is.Equal(rec.Body.String(), `{"error":{"code":"UNAUTHORIZED","message":"no key"}}`+"\n") // no request id header, none in the body
}

func TestWriteHeadHasHeadersButNoBody(t *testing.T) {
	is := is.New(t)
	get, head := httptest.NewRecorder(), httptest.NewRecorder()
	envelope.WriteItem(get, httptest.NewRequest(http.MethodGet, "/v1/x", nil), map[string]int{"n": 1})
	envelope.WriteItem(head, httptest.NewRequest(http.MethodHead, "/v1/x", nil), map[string]int{"n": 1})
	is.Equal(head.Body.Len(), 0)                                                      // HEAD has no body
	is.Equal(head.Header().Get("Content-Length"), get.Header().Get("Content-Length")) // but the same length as GET
	is.Equal(head.Code, get.Code)
}

func TestWriteUnmarshallableIsInternal(t *testing.T) {
	is := is.New(t)
	rec := httptest.NewRecorder()
	envelope.WriteItem(rec, httptest.NewRequest("GET", "/v1/x", nil), map[string]any{"f": func() {}})
	is.Equal(rec.Code, 500)
	is.Equal(rec.Body.String(), `{"error":{"code":"INTERNAL","message":"internal error"}}`+"\n")
}

func TestErrorString(t *testing.T) {
	is := is.New(t)
	is.Equal(envelope.InvalidParam("page", "bad").Error(), "INVALID_PARAMETER (page): bad")
	is.Equal(envelope.Errorf(envelope.NotFound, "no %s", "item").Error(), "NOT_FOUND: no item")
}
