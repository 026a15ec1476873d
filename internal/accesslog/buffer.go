package accesslog

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// DefaultFlushInterval is how long a line may wait in a Buffer before it
// is written, unless NewBuffer is given another interval.
const DefaultFlushInterval = 100 * time.Millisecond

// bufferSize is the bytes a Buffer holds before it writes them at once.
const bufferSize = 64 << 10

// Buffer is an io.Writer for a request log that writes to w in blocks
// rather than a write (a system call, for a file or a pipe) per line: the
// lines are appended to a buffer under a mutex and written when it holds
// 64 KiB, every flush interval, and on Flush and Close. Each Write is
// kept whole, so lines never interleave. A line waits at most the flush
// interval (as long as w takes), and the lines not yet written are lost
// if the process dies without Close. An error of w is returned by the
// next Write, Flush or Close, as bufio.Writer does.
type Buffer struct {
	mu     sync.Mutex
	w      *bufio.Writer
	closed bool

	stop chan struct{}
	done chan struct{}
}

// NewBuffer returns a Buffer on w that writes what it holds every
// interval (DefaultFlushInterval when interval is 0 or less). Close it to
// write the rest and stop its goroutine.
func NewBuffer(w io.Writer, interval time.Duration) *Buffer {
	if interval <= 0 {
		interval = DefaultFlushInterval
	}
	b := &Buffer{w: bufio.NewWriterSize(w, bufferSize), stop: make(chan struct{}), done: make(chan struct{})}
	go b.flusher(interval)
	return b
}

// Write appends p whole; it writes the buffer first when p would not fit.
// After Close, it writes p straight through.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		if err := b.w.Flush(); err != nil {
			return 0, err
		}
	}
	if len(p) > b.w.Available() && b.w.Buffered() > 0 {
		if err := b.w.Flush(); err != nil {
			return 0, err
		}
	}
	n, err := b.w.Write(p)
	if err == nil && b.closed {
		err = b.w.Flush()
	}
	return n, err
}

// Flush writes what the buffer holds.
func (b *Buffer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Flush()
}

// Close stops the periodic writes and writes what the buffer holds; later
// Writes go straight through. It does not close the writer beneath.
func (b *Buffer) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	b.mu.Unlock()
	close(b.stop)
	<-b.done
	return b.Flush()
}

// flusher writes the buffer every interval until Close.
func (b *Buffer) flusher(interval time.Duration) {
	defer close(b.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			_ = b.Flush() // the error stays in the bufio.Writer for the next call
		}
	}
}
