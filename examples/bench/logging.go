package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/clientstatus/clientstatus/internal/accesslog"
)

// The request log of the library's side (-log): slog's JSON handler, so
// that every line is formatted as a server's would be, writing to
//
//   - buffered (the default): a file, through accesslog.Buffer, which
//     writes it in blocks (as a server should: issue 25);
//   - file: the same file, a write (a system call) per line;
//   - discard: io.Discard, formatting only, no write at all.
//
// The file is a temporary one, removed at the end.
const (
	logBuffered = "buffered"
	logFile     = "file"
	logDiscard  = "discard"
)

// requestLog is the logger libraryHandler gives the request log; run sets
// it from -log, and closes what it opened.
var requestLog = slog.New(slog.NewJSONHandler(io.Discard, nil))

// openRequestLog sets requestLog as mode says and returns what closes it.
func openRequestLog(mode string) (func(), error) {
	if mode == logDiscard {
		requestLog = slog.New(slog.NewJSONHandler(io.Discard, nil))
		return func() {}, nil
	}
	f, err := os.CreateTemp("", "clientstatus-bench-*.log")
	if err != nil {
		return nil, err
	}
	var w io.Writer = f
	var buf *accesslog.Buffer
	if mode == logBuffered {
		buf = accesslog.NewBuffer(f, 0)
		w = buf
	}
	requestLog = slog.New(slog.NewJSONHandler(w, nil))
	return func() {
		if buf != nil {
			_ = buf.Close()
		}
		f.Close()
		os.Remove(f.Name())
	}, nil
}

// describeLog says where the request log goes, for the header.
func describeLog(mode string) string {
	switch mode {
	case logDiscard:
		return "formatted and written to io.Discard (no write)"
	case logFile:
		return "written to a temporary file, a write(2) per line (-log file)"
	}
	return fmt.Sprintf("written to a temporary file through accesslog.Buffer (blocks of 64 KiB, at least every %s)", accesslog.DefaultFlushInterval)
}
