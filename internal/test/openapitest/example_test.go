package openapitest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/clientstatus/clientstatus/internal/test/openapitest"
)

func ExampleValidator_Validate() {
	v := openapitest.New()
	req := httptest.NewRequest("DELETE", "/v1/invoices", nil)
	header := http.Header{
		"Content-Type": {"application/json; charset=utf-8"},
		"X-Request-Id": {"req-1"},
		"Allow":        {"GET, HEAD"},
	}
	body := []byte(`{"error":{"code":"METHOD_NOT_ALLOWED","message":"use GET or HEAD","request_id":"req-1"}}`)
	fmt.Println(v.Validate(req, 405, header, body))
	fmt.Println(v.Validate(req, 200, header, body))
	// Output:
	// <nil>
	// DELETE /v1/invoices: status 200 is not documented for unknown method
}
