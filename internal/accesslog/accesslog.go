// Package accesslog is the request log of the module's commands
// (examples/server, and examples/bench, which measures the library as the
// server runs it): one line per request, with its method, path, status,
// bytes, duration and request id.
package accesslog

import (
	"log/slog"
	"net/http"
	"time"
)

// Handler logs one line per request served by next, through log's
// handler: method, path, status, bytes, duration and request id (the
// X-Request-Id response header). It logs the path only, never the query
// (a download link's signature is in it) nor any header (the API key is
// in one).
//
// A 503 is a warning, not an error: the API logs why (at most once per
// statusapi.UnavailableLogInterval during an outage) and this line only
// that one more request failed, so a failed request is one line, not an
// error line on top of the API's. Other 5xx are errors.
//
// The record is given to the slog.Handler directly, without the caller's
// program counter (no source in the line): slog.Logger would walk the
// stack for it on every request.
func Handler(log *slog.Logger, next http.Handler) http.Handler {
	h := log.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
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
		ctx := r.Context()
		if !h.Enabled(ctx, level) {
			return
		}
		end := time.Now()
		line := slog.NewRecord(end, level, "request", 0)
		line.AddAttrs(
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", rec.status),
			slog.Int64("bytes", rec.bytes),
			slog.Duration("duration", end.Sub(start)),
			slog.String("request_id", w.Header().Get("X-Request-Id")),
		)
		_ = h.Handle(ctx, line)
	})
}

// recorder notes the status and size of a response. Unwrap lets
// http.ResponseController reach the writer beneath (to flush, or to set
// deadlines).
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

// WriteHeader notes the first status written and passes it on.
func (s *recorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

// Write notes the bytes written (and a 200 when no status was) and passes
// them on.
func (s *recorder) Write(p []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(p)
	s.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the writer beneath.
func (s *recorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
