package statusapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
)

// A white-label portal serves each client on a domain of its own: links
// are made on the domain the request came to, when it is one of the
// portal's.
func ExampleWithPublicURLFunc() {
	st, keys, src, key := exampleParts()
	defer keys.Close()
	domains := map[string]string{
		"status.acme.example": "https://status.acme.example/api",
	}
	api := statusapi.New(st, keys, ratelimit.NewMemory(),
		statusapi.WithSigningKey([]byte("0123456789abcdef0123456789abcdef")),
		statusapi.WithFiles(src),
		statusapi.WithPublicURLFunc(func(r *http.Request) (*url.URL, error) {
			base, ok := domains[r.Host] // never r.Host itself
			if !ok {
				return nil, statusapi.ErrUnknownHost
			}
			return url.Parse(base)
		}))
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", api))

	for _, host := range []string{"status.acme.example", "evil.example"} {
		req := httptest.NewRequest("GET", "http://"+host+"/api/v1/deliverables/d1/download", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res := httptest.NewRecorder()
		mux.ServeHTTP(res, req)
		var body struct{ Data struct{ URL string } }
		_ = json.Unmarshal(res.Body.Bytes(), &body)
		link, _, _ := strings.Cut(body.Data.URL, "?")
		fmt.Println(host, res.Code, link)
	}
	// Output:
	// status.acme.example 200 https://status.acme.example/api/v1/deliverables/d1/file
	// evil.example 404
}

func ExampleReadiness() {
	st, keys, _, _ := exampleParts()
	defer keys.Close()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil)) // where a failing part is logged, with why
	mux := http.NewServeMux()
	mux.Handle("GET /readyz", statusapi.Readiness(st, keys, ratelimit.NewMemory(), logger))

	res := httptest.NewRecorder()
	mux.ServeHTTP(res, httptest.NewRequest("GET", "/readyz", nil))
	fmt.Print(res.Code, " ", res.Body.String())
	// Output: 200 {"status":"ready"}
}
