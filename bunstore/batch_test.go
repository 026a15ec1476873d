package bunstore

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// TestBatcherAnswersEachReadFromAStatementStartedAfterIt: a read that
// arrives while batches run joins the next batch, never a running one,
// identical reads are asked once, and each read gets its own key's value.
func TestBatcherAnswersEachReadFromAStatementStartedAfterIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		var mu sync.Mutex
		var asked [][]string
		release := make(chan struct{})
		b := newBatcher(func(keys []string) (map[string]int, error) {
			mu.Lock()
			asked = append(asked, slices.Clone(keys))
			mu.Unlock()
			<-release
			out := map[string]int{}
			for _, k := range keys {
				out[k] = len(k)
			}
			return out, nil
		}, time.Minute)
		got := make(map[string]int)
		var gotMu sync.Mutex
		read := func(k string) {
			v, err := b.read(context.Background(), k)
			is.NoErr(err)
			gotMu.Lock()
			got[k] = v
			gotMu.Unlock()
		}
		go read("a")
		synctest.Wait()
		go read("bb")
		synctest.Wait() // two statements run, each of one read
		for _, k := range []string{"ccc", "dddd", "ccc"} {
			go read(k)
		}
		synctest.Wait()
		is.Equal(asked, [][]string{{"a"}, {"bb"}}) // the later reads wait
		release <- struct{}{}                      // one statement ends: the next batch starts
		synctest.Wait()
		mu.Lock()
		third := slices.Sorted(slices.Values(asked[2]))
		mu.Unlock()
		is.Equal(third, []string{"ccc", "dddd"}) // gathered, each key once (in the order they came)
		close(release)
		synctest.Wait()
		is.Equal(got, map[string]int{"a": 1, "bb": 2, "ccc": 3, "dddd": 4})
		is.Equal(b.running, 0) // nothing left running
	})
}

// TestBatcherReaderLeaves: a reader whose context ends stops waiting with
// its error, and its batch still answers the others; a batch's error
// reaches its readers.
func TestBatcherReaderLeaves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		release := make(chan struct{})
		failed := errors.New("database down")
		b := newBatcher(func(keys []string) (map[string]int, error) {
			switch keys[0] {
			case "busy":
				<-release
			case "fail":
				return nil, failed
			}
			return map[string]int{"x": 7}, nil
		}, time.Minute)
		for range maxRunningBatches { // every statement busy: the next reads gather
			go b.read(context.Background(), "busy")
			synctest.Wait()
		}
		ctx, cancel := context.WithCancel(context.Background())
		var left, stayed error
		var v int
		go func() { _, left = b.read(ctx, "x") }()
		go func() { v, stayed = b.read(context.Background(), "x") }()
		synctest.Wait()
		cancel()
		synctest.Wait()
		is.True(errors.Is(left, context.Canceled)) // left at once
		is.Equal(v, 0)                             // the other still waits
		release <- struct{}{}                      // a statement ends: the batch of x runs
		synctest.Wait()
		is.NoErr(stayed)
		is.Equal(v, 7)
		close(release)
		_, err := b.read(context.Background(), "fail")
		is.True(errors.Is(err, failed))
	})
}

// TestBatcherReadWithinTimeout: in an outage, where every statement runs
// out its query timeout, a read that must wait for a running statement
// before its own still answers within one timeout of its asking, as
// unavailable and past its deadline, not after two.
func TestBatcherReadWithinTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		const timeout = 3 * time.Second
		b := newBatcher(func(keys []string) (map[string]int, error) {
			time.Sleep(timeout) // fake time (synctest): a blackholed database, cut by the query timeout
			return nil, context.DeadlineExceeded
		}, timeout)
		for range maxRunningBatches { // every statement busy
			go func() { _, _ = b.read(context.Background(), "busy") }()
			synctest.Wait()
		}
		time.Sleep(500 * time.Millisecond) // fake time (synctest): asked while they run
		start := time.Now()
		_, err := b.read(context.Background(), "x")
		is.True(time.Since(start) <= timeout) // within one timeout, not two
		err = batchError(context.Background(), func() string { return "x" }, err)
		is.True(errors.Is(err, store.ErrUnavailable))
		is.True(errors.Is(err, context.DeadlineExceeded))
		time.Sleep(2 * timeout) // fake time (synctest): the statements end
		synctest.Wait()
		is.Equal(b.running, 0)
	})
}

// TestBatcherCancelledRead: a read whose context has ended answers its
// error, however fast the batch would have answered, and asks nothing.
func TestBatcherCancelledRead(t *testing.T) {
	is := is.New(t)
	asked := 0
	b := newBatcher(func(keys []string) (map[string]int64, error) {
		asked++
		return map[string]int64{"k": 1}, nil
	}, time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 100 {
		_, err := b.read(ctx, "k")
		is.True(errors.Is(err, context.Canceled)) // an ended read is never answered
	}
	is.Equal(asked, 0) // and runs no statement
}
