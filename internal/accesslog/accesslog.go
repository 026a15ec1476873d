package accesslog

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
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
// Lines carry no source position.
func Handler(log *slog.Logger, next http.Handler) http.Handler {
	h := log.Handler()
	return serve(next, h.Enabled, func(ctx context.Context, e entry) { _ = h.Handle(ctx, e.record()) })
}

// JSONHandler is Handler writing each line to w as
// Handler(slog.New(slog.NewJSONHandler(w, nil)), next) does, byte for byte,
// without slog's general formatting (a third of the cost of a cached
// answer's line): at slog's default level (info), one Write per line,
// serialized, so that w need not be safe for concurrent use.
func JSONHandler(w io.Writer, next http.Handler) http.Handler {
	var mu sync.Mutex
	var buf []byte
	enabled := func(_ context.Context, level slog.Level) bool { return level >= slog.LevelInfo }
	return serve(next, enabled, func(_ context.Context, e entry) {
		mu.Lock()
		defer mu.Unlock()
		buf = e.appendJSON(buf[:0])
		_, _ = w.Write(buf)
	})
}

// entry is the line of one request.
type entry struct {
	level                   slog.Level
	end                     time.Time
	method, path, requestID string
	status                  int
	bytes                   int64
	duration                time.Duration
}

// serve runs next and has emit log its line, when enabled says so at its
// level.
func serve(next http.Handler, enabled func(context.Context, slog.Level) bool, emit func(context.Context, entry)) http.Handler {
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
		if !enabled(ctx, level) {
			return
		}
		end := time.Now()
		emit(ctx, entry{level: level, end: end, method: r.Method, path: r.URL.Path, status: rec.status,
			bytes: rec.bytes, duration: end.Sub(start), requestID: w.Header().Get("X-Request-Id")})
	})
}

// record is e as a slog record.
func (e entry) record() slog.Record {
	line := slog.NewRecord(e.end, e.level, "request", 0)
	line.AddAttrs(
		slog.String("method", e.method),
		slog.String("path", e.path),
		slog.Int("status", e.status),
		slog.Int64("bytes", e.bytes),
		slog.Duration("duration", e.duration),
		slog.String("request_id", e.requestID),
	)
	return line
}

// appendJSON appends e's line as slog.NewJSONHandler(w, nil) writes
// e.record(), newline included.
func (e entry) appendJSON(b []byte) []byte {
	b = append(b, `{"time":"`...)
	b = e.end.Round(0).AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"`...)
	b = append(b, e.level.String()...)
	b = append(b, `","msg":"request","method":"`...)
	b = appendJSONString(b, e.method)
	b = append(b, `","path":"`...)
	b = appendJSONString(b, e.path)
	b = append(b, `","status":`...)
	b = strconv.AppendInt(b, int64(e.status), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, e.bytes, 10)
	b = append(b, `,"duration":`...)
	b = strconv.AppendInt(b, int64(e.duration), 10)
	b = append(b, `,"request_id":"`...)
	b = appendJSONString(b, e.requestID)
	return append(b, "\"}\n"...)
}

// appendJSONString appends s escaped as slog's JSON handler escapes it
// (without the quotes): quote, backslash and control characters, invalid
// UTF-8 as U+FFFD, U+2028 and U+2029; nothing else, HTML included.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, `\n`...)
			case '\r':
				b = append(b, `\r`...)
			case '\t':
				b = append(b, `\t`...)
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, `\u202`...)
			b = append(b, hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(b, s[start:]...)
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
