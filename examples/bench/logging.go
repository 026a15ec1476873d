package main

import (
	"io"
	"log/slog"
	"net/http"
	"time"
)

// discardLog is the request log of the library's side: slog's JSON
// handler, so every line is formatted as a server's would be, writing to
// io.Discard, so that no disk is involved in the measurement.
func discardLog() *slog.Logger {
	return slog.New(slog.NewJSONHandler(io.Discard, nil))
}

// logRequests logs one line per request: method, path, status, bytes,
// duration and request id. It is examples/server's request log (a command
// cannot import another), copied so that the library is measured with
// the log a server runs it with.
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

// statusRecorder notes the status and size of a response.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

// WriteHeader notes the first status written and passes it on.
func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

// Write notes the bytes written (and a 200 when no status was) and passes
// them on.
func (s *statusRecorder) Write(p []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(p)
	s.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the writer beneath.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
