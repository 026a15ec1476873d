package envelope_test

import (
	"fmt"
	"net/http/httptest"

	"github.com/clientstatus/clientstatus/envelope"
)

func ExampleWriteError() {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/v1/invoices?status=PAID", nil)
	envelope.WriteError(rec, req, envelope.InvalidParam("status", "status must be one of draft, open, paid, void"))
	fmt.Println(rec.Code)
	fmt.Print(rec.Body.String())
	// Output:
	// 400
	// {"error":{"code":"INVALID_PARAMETER","message":"status must be one of draft, open, paid, void","param":"status"}}
}
