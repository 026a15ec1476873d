package accesslog_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/accesslog"
)

func TestHandler(t *testing.T) {
	tests := []struct {
		status int
		level  string
	}{
		{http.StatusOK, "INFO"},
		{http.StatusNotFound, "INFO"},
		{http.StatusServiceUnavailable, "WARN"},
		{http.StatusInternalServerError, "ERROR"},
	}
	handlers := map[string]func(out *bytes.Buffer, next http.Handler) http.Handler{
		"slog": func(out *bytes.Buffer, next http.Handler) http.Handler {
			return accesslog.Handler(slog.New(slog.NewJSONHandler(out, nil)), next)
		},
		"JSONHandler": func(out *bytes.Buffer, next http.Handler) http.Handler { return accesslog.JSONHandler(out, next) },
	}
	for _, tt := range tests {
		for name, handler := range handlers {
			t.Run(http.StatusText(tt.status)+" "+name, func(t *testing.T) {
				is := is.New(t)
				var out bytes.Buffer
				h := handler(&out, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("X-Request-Id", "req-1")
					w.WriteHeader(tt.status)
					_, _ = w.Write([]byte("hello"))
				}))
				req := httptest.NewRequest("GET", "/v1/deliverables/d1/file?signature=secret", nil)
				req.Header.Set("Authorization", "Bearer csk_secret")
				h.ServeHTTP(httptest.NewRecorder(), req)

				var line map[string]any
				is.NoErr(json.Unmarshal(out.Bytes(), &line)) // one JSON line
				is.Equal(line["level"], tt.level)
				is.Equal(line["msg"], "request")
				is.Equal(line["method"], "GET")
				is.Equal(line["path"], "/v1/deliverables/d1/file")
				is.Equal(line["status"], float64(tt.status))
				is.Equal(line["bytes"], float64(5))
				is.Equal(line["request_id"], "req-1")
				_, ok := line["duration"]
				is.True(ok)
				is.True(!bytes.Contains(out.Bytes(), []byte("secret"))) // neither the query nor a header is logged
			})
		}
	}
}

func TestHandlerBelowLevel(t *testing.T) {
	is := is.New(t)
	var out bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h := accesslog.Handler(log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/v1/projects", nil))
	is.Equal(out.Len(), 0) // a 200 below the level is not logged
}
