package relay_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/relay"
)

// fakeChannel is a channel whose sessions the test drives: each session
// takes what to do from the sessions channel.
type fakeChannel struct {
	sessions chan func(ctx context.Context, up func(), report func(string)) error
	mu       sync.Mutex
	running  int
}

func newFakeChannel() *fakeChannel {
	return &fakeChannel{sessions: make(chan func(context.Context, func(), func(string)) error)}
}

func (c *fakeChannel) session(ctx context.Context, up func(), report func(string)) error {
	c.mu.Lock()
	c.running++
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.running--
		c.mu.Unlock()
	}()
	select {
	case s := <-c.sessions:
		return s(ctx, up, report)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *fakeChannel) Running() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.running
}

// syncBuffer is a log destination safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// reports collects what a subscriber is told.
type reports chan string

func (r reports) note(orgID string) { r <- orgID }

func (r reports) next(t *testing.T) string {
	t.Helper()
	select {
	case org := <-r:
		return org
	case <-time.After(5 * time.Second):
		t.Fatal("no report within 5s")
		return ""
	}
}

func TestHub(t *testing.T) {
	is := is.New(t)
	ch := newFakeChannel()
	var logs syncBuffer
	h := relay.New("fake", slog.New(slog.NewTextHandler(&logs, nil)), ch.session, auth.AllOrganizations)
	got := make(reports, 10)
	stop := h.Subscribe(got.note)

	// A session that comes up, reports two organizations, then fails.
	ch.sessions <- func(ctx context.Context, up func(), report func(string)) error {
		up()
		report("org_a")
		report("org_b")
		return errors.New("connection reset")
	}
	is.Equal(got.next(t), auth.AllOrganizations) // up: forget everything
	is.Equal(got.next(t), "org_a")
	is.Equal(got.next(t), "org_b")

	// The next session fails before it is up, then one comes up again.
	ch.sessions <- func(context.Context, func(), func(string)) error { return errors.New("connection refused") }
	ch.sessions <- func(ctx context.Context, up func(), report func(string)) error {
		up()
		<-ctx.Done()
		return ctx.Err()
	}
	is.Equal(got.next(t), auth.AllOrganizations) // back: forget everything again
	is.True(strings.Contains(logs.String(), "invalidations are down"))
	is.Equal(strings.Count(logs.String(), "level=WARN"), 1) // one warning per outage, not one per retry
	is.True(strings.Contains(logs.String(), "invalidations are back"))

	other := make(reports, 10)
	stopOther := h.Subscribe(other.note)
	stop()
	is.Equal(ch.Running(), 1) // a subscriber remains: the session goes on
	stopOther()
	stopOther()               // a second stop is harmless
	is.Equal(ch.Running(), 0) // the last stop ends the session, and waits for it
}

func TestHubGivesUp(t *testing.T) {
	is := is.New(t)
	ch := newFakeChannel()
	var logs syncBuffer
	h := relay.New("fake", slog.New(slog.NewTextHandler(&logs, nil)), ch.session, auth.AllOrganizations)
	stop := h.Subscribe(func(string) {})
	ch.sessions <- func(context.Context, func(), func(string)) error {
		return fmt.Errorf("%w: the driver is not pgx", relay.ErrGiveUp)
	}
	select {
	case ch.sessions <- func(context.Context, func(), func(string)) error { return nil }:
		t.Fatal("a session was opened again after ErrGiveUp")
	case <-time.After(10 * relay.MinBackoff): // a Hub that retried would have by now
	}
	is.True(strings.Contains(logs.String(), "level=ERROR")) // said once, as an error
	stop()
}
