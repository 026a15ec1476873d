package accesslog

import (
	"bytes"
	"context"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/matryer/is"
)

// TestJSONMatchesSlog holds JSONHandler's lines to slog's JSON handler:
// for random lines (paths with quotes, control characters, HTML, invalid
// UTF-8, U+2028; every level; odd times), appendJSON writes the bytes
// slog.NewJSONHandler writes for the same record.
func TestJSONMatchesSlog(t *testing.T) {
	is := is.New(t)
	r := rand.New(rand.NewPCG(25, 2))
	pieces := []string{"a", "/v1/invoices", "é", "\"", "\\", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "<&>", "\u2028", "\u2029", "\xff", "\xe2\x80", "😀", " ", "%2F"}
	str := func() string {
		var b []byte
		for range r.IntN(8) {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		return string(b)
	}
	levels := []slog.Level{slog.LevelInfo, slog.LevelWarn, slog.LevelError}
	for range 5000 {
		e := entry{
			level:     levels[r.IntN(len(levels))],
			end:       time.Unix(r.Int64N(1<<34), r.Int64N(1e9)).In(time.FixedZone("z", (r.IntN(48)-24)*1800)),
			method:    str(),
			path:      str(),
			requestID: str(),
			status:    100 + r.IntN(500),
			bytes:     r.Int64N(1 << 40),
			duration:  time.Duration(r.Int64N(1 << 40)),
		}
		if r.IntN(10) == 0 {
			e.end = time.Now() // with a monotonic reading
		}
		var want bytes.Buffer
		is.NoErr(slog.NewJSONHandler(&want, nil).Handle(context.Background(), e.record()))
		if got := e.appendJSON(nil); string(got) != want.String() {
			t.Fatalf("appendJSON:\n%s\nslog:\n%s", got, want.String())
		}
	}
}
