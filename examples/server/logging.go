package main

import (
	"log/slog"
	"net/http"
	"time"
)

// logRequests logs one line per request: method, path, status, bytes,
// duration and request id. It logs the path only, never the query (a
// download link's signature is in it) nor any header (the API key is in
// one).
//
// A 503 is a warning, not an error: the API logs why (at most once per
// statusapi.UnavailableLogInterval during an outage) and this line only
// that one more request failed, so a failed request is one line, not an
// error line on top of the API's.
func logRequests(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		level := slog.LevelInfo
		switch {
		case rec.status == http.StatusServiceUnavailable:
			level = slog.LevelWarn
		case rec.status >= 500:
			level = slog.LevelError
		}
		log.LogAttrs(r.Context(), level, "request",
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", rec.status),
			slog.Int64("bytes", rec.bytes),
			slog.Duration("duration", time.Since(start)),
			slog.String("request_id", w.Header().Get("X-Request-Id")),
		)
	})
}

// statusRecorder notes the status and size of a response. Unwrap lets
// http.ResponseController reach the writer beneath (to flush, or to set
// deadlines).
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(p []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(p)
	s.bytes += int64(n)
	return n, err
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
