package ratelimit

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/testenv"
)

func TestMemoryCounterSweepsEndedWindows(t *testing.T) {
	is := is.New(t)
	clk := testenv.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	m := newMemoryCounter(clk.Now)
	ctx := context.Background()
	minute := Rate{Limit: 60, Period: time.Minute}
	for i := range 100 {
		_, err := m.Take(ctx, "org_"+strconv.Itoa(i), minute)
		is.NoErr(err)
	}
	_, err := m.Take(ctx, "hourly", Rate{Limit: 60, Period: time.Hour})
	is.NoErr(err)
	is.Equal(len(m.windows), 101)

	clk.Advance(time.Minute)
	_, err = m.Take(ctx, "org_new", minute)
	is.NoErr(err)
	is.Equal(len(m.windows), 2) // the ended windows are gone; the hour's and the new one stay

	clk.Advance(time.Second)
	_, err = m.Take(ctx, "org_0", minute)
	is.NoErr(err)
	is.Equal(len(m.windows), 3) // no sweep before sweepInterval has passed
}

func TestMemoryCounterGiveBack(t *testing.T) {
	is := is.New(t)
	clk := testenv.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	m := newMemoryCounter(clk.Now)
	ctx := context.Background()
	r := Rate{Limit: 60, Period: time.Minute}

	is.NoErr(m.GiveBack(ctx, "k", r))
	is.Equal(len(m.windows), 0) // no window opened by a give-back

	w, err := m.Take(ctx, "k", r)
	is.NoErr(err)
	is.Equal(w.Count, int64(1))
	is.NoErr(m.GiveBack(ctx, "k", r))
	is.NoErr(m.GiveBack(ctx, "k", r))
	is.Equal(m.windows["k"].count, int64(0)) // never below zero
	w, err = m.Take(ctx, "k", r)
	is.NoErr(err)
	is.Equal(w.Count, int64(1)) // the window goes on, from zero

	clk.Advance(time.Minute)
	is.NoErr(m.GiveBack(ctx, "k", r))
	w, err = m.Take(ctx, "k", r)
	is.NoErr(err)
	is.Equal(w.Count, int64(1))                      // a give-back after the window ended gave nothing to the next
	is.True(w.End.Equal(clk.Now().Add(time.Minute))) // which starts at its first request
}
