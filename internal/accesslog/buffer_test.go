package accesslog_test

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/accesslog"
)

// countingWriter counts the writes it is given.
type countingWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes++
	return c.buf.Write(p)
}

func (c *countingWriter) state() (string, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String(), c.writes
}

func TestBufferWritesInBlocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		var w countingWriter
		b := accesslog.NewBuffer(&w, time.Second)
		for i := range 100 {
			_, err := fmt.Fprintf(b, "line %d\n", i)
			is.NoErr(err)
		}
		out, writes := w.state()
		is.Equal(writes, 0) // nothing written before the interval
		is.Equal(out, "")

		time.Sleep(time.Second) // fake time (synctest): the bubble's clock
		synctest.Wait()
		out, writes = w.state()
		is.Equal(writes, 1) // the hundred lines in one write
		is.Equal(strings.Count(out, "\n"), 100)
		is.True(strings.HasPrefix(out, "line 0\nline 1\n"))

		_, err := b.Write([]byte("last\n"))
		is.NoErr(err)
		is.NoErr(b.Close()) // Close writes the rest
		out, writes = w.state()
		is.Equal(writes, 2)
		is.True(strings.HasSuffix(out, "line 99\nlast\n"))

		_, err = b.Write([]byte("after\n")) // after Close, straight through
		is.NoErr(err)
		out, _ = w.state()
		is.True(strings.HasSuffix(out, "last\nafter\n"))
		is.NoErr(b.Close()) // twice is fine
	})
}

func TestBufferKeepsLinesWhole(t *testing.T) {
	is := is.New(t)
	var w countingWriter
	b := accesslog.NewBuffer(&w, time.Hour)
	line := strings.Repeat("x", 1000) + "\n"
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 { // 8 x 200 KB: the buffer fills and is written many times
				_, _ = b.Write([]byte(line))
			}
		})
	}
	wg.Wait()
	is.NoErr(b.Close())
	out, writes := w.state()
	is.True(writes > 1)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	is.Equal(len(lines), 1600)
	for _, l := range lines {
		is.Equal(len(l), 1000) // no line cut or mixed with another
	}
}
