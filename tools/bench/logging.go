package main

import (
	"fmt"
	"io"
	"os"

	"github.com/clientstatus/clientstatus/internal/accesslog"
)

// The request log of the library's side (-log): accesslog.JSONHandler,
// the lines of slog's JSON handler, as examples/server writes them with
// -log-format json, writing to
//
//   - buffered (the default): a file, through accesslog.Buffer, which
//     writes it in blocks (as a server should);
//   - file: the same file, a write (a system call) per line;
//   - discard: io.Discard, formatting only, no write at all.
//
// The file is a temporary one, removed at the end.
const (
	logBuffered = "buffered"
	logFile     = "file"
	logDiscard  = "discard"
)

// requestLog is where libraryHandler's request log writes; run sets it
// from -log, and closes what it opened.
var requestLog io.Writer = io.Discard

// openRequestLog sets requestLog as mode says and returns what closes it.
func openRequestLog(mode string) (func(), error) {
	if mode == logDiscard {
		requestLog = io.Discard
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
	requestLog = w
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
