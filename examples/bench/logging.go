package main

import (
	"io"
	"log/slog"
)

// discardLog is the request log of the library's side: slog's JSON
// handler, so every line is formatted as a server's would be, writing to
// io.Discard, so that no disk is involved in the measurement.
func discardLog() *slog.Logger {
	return slog.New(slog.NewJSONHandler(io.Discard, nil))
}
