package statusapi

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/store"
)

// randomString is a string that may hold what JSON escapes: quotes,
// backslashes, control characters, HTML characters, U+2028, invalid
// UTF-8 and other non-ASCII text, or nothing.
func randomString(r *rand.Rand) string {
	parts := []string{"", "a", "INV-0042", `"`, `\`, "\n", "\t", "\x00", "\x1f", "<", ">", "&", "\u2028", "\u2029", "é", "日本", "\xff", "\xc3", "🙂", "2026-01-02T03:04:05Z", " ", "/"}
	var b []byte
	for range r.IntN(6) {
		b = append(b, parts[r.IntN(len(parts))]...)
	}
	return string(b)
}

func randomOptional(r *rand.Rand) *string {
	if r.IntN(3) == 0 {
		return nil
	}
	s := randomString(r)
	return &s
}

func randomInvoice(r *rand.Rand) invoice {
	return invoice{
		ID: randomString(r), Number: randomString(r), ProjectID: randomOptional(r),
		Status: randomString(r), Currency: randomString(r),
		Total: r.Int64() - r.Int64(), AmountDue: int64(r.IntN(1000)),
		IssuedAt: randomString(r), DueAt: randomString(r), PaidAt: randomOptional(r),
		DocumentAvailable: r.IntN(2) == 0, UpdatedAt: randomString(r),
	}
}

// TestFastListEncodingIsEncodingJSON holds the list encoder without
// reflection to envelope.WriteList (encoding/json): the same bytes, body,
// status and headers, for random pages of invoices and random meta.
func TestFastListEncodingIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 25))
	for n := range 2000 {
		items := make([]invoice, r.IntN(5))
		for i := range items {
			items[i] = randomInvoice(r)
		}
		meta := envelope.Meta{Page: r.IntN(1000), PerPage: r.IntN(101), Total: r.IntN(1 << 30)}
		if r.IntN(4) == 0 {
			meta.SyncedThrough = randomString(r)
		}
		if !writesAsEncodingJSON(t, items, meta) {
			t.Fatalf("case %d: the fast encoder refused plain invoices", n)
		}
	}
}

// writesAsEncodingJSON writes the page with writeFastList and
// envelope.WriteList, for GET and HEAD, and fails t unless both write the
// same bytes, status and headers; false when writeFastList declines (and
// then it must have written nothing).
func writesAsEncodingJSON[W any](t *testing.T, items []W, meta envelope.Meta) bool {
	t.Helper()
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		req := httptest.NewRequest(method, "/v1/invoices", nil)
		want, got := httptest.NewRecorder(), httptest.NewRecorder()
		envelope.WriteList(want, req, items, meta)
		if !writeFastList(got, req, items, meta) {
			if got.Body.Len() != 0 || len(got.Header()) != 0 {
				t.Fatalf("the fast encoder declined a page and wrote %q %v", got.Body.Bytes(), got.Header())
			}
			return false
		}
		if !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) || got.Code != want.Code ||
			got.Header().Get("Content-Length") != want.Header().Get("Content-Length") ||
			got.Header().Get("Content-Type") != want.Header().Get("Content-Type") {
			t.Fatalf("%s:\nfast:          %q %v\nencoding/json: %q %v", method, got.Body.Bytes(), got.Header(), want.Body.Bytes(), want.Header())
		}
	}
	return true
}

// A page the fast encoder cannot write, an item of another kind or an
// invoice with its project expanded, is left whole to encoding/json.
func TestFastListEncodingDeclines(t *testing.T) {
	is := is.New(t)
	req := httptest.NewRequest(http.MethodGet, "/v1/invoices", nil)
	w := httptest.NewRecorder()
	is.True(!writeFastList(w, req, []struct{ A int }{{1}}, envelope.Meta{}))
	is.Equal(w.Body.Len(), 0) // nothing written
	expandedInv := randomInvoice(rand.New(rand.NewPCG(1, 1)))
	expandedInv.Project = expanded{asked: true}
	is.True(!writeFastList(w, req, []invoice{randomInvoice(rand.New(rand.NewPCG(2, 2))), expandedInv}, envelope.Meta{}))
	is.Equal(w.Body.Len(), 0)
	is.Equal(len(w.Header()), 0) // nor any header
}

func BenchmarkListEncoding(b *testing.B) {
	items := make([]invoice, 100)
	issued := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i := range items {
		project := "prj_1"
		items[i] = invoiceOut(store.Invoice{ID: fmt.Sprintf("inv_%06d", i), OrgID: "o", Number: fmt.Sprintf("INV-%06d", i),
			ProjectID: &project, Status: store.InvoicePaid, Currency: "EUR", Total: 120000, IssuedAt: issued,
			DueAt: issued.AddDate(0, 0, 30), PaidAt: &issued, UpdatedAt: issued}, expanded{})
	}
	meta := envelope.Meta{Page: 1, PerPage: 100, Total: 137}
	req := httptest.NewRequest(http.MethodGet, "/v1/invoices", nil)
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			envelope.WriteList(&bodyBuffer{header: http.Header{}}, req, items, meta)
		}
	})
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			writeFastList(&bodyBuffer{header: http.Header{}}, req, items, meta)
		}
	})
}
