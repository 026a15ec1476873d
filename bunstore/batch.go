package bunstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// The hot reads of polling clients (a data version, a page of invoices)
// are coalesced: concurrent reads of one shape are answered by one
// statement, so the database parses, plans, snapshots and answers once
// for all of them, and the store makes one round trip. Under load, the
// cost of a statement, not of its few index scans, is most of what these
// reads cost: a statement of 8 pages of invoices answers 3x the pages a
// second of 8 statements on the same cores (tools/bench; see
// docs/performance.md).
//
// It changes nothing a reader sees. A read joins only a batch that has
// not started, so the statement that answers it starts after the read
// was asked, in a snapshot taken then: a write committed before the read
// was asked is seen, as with a statement of its own. Identical reads of
// one batch are asked once. A reader whose context ends stops waiting at
// once with its error; the batch runs on for the others, under the
// store's query timeout. A read that waits for the statement that runs
// before its own (maxRunningBatches) and then its own gives up one query
// timeout after it was asked, as a statement of its own would: in an
// outage, a batched read answers as soon as any other.

// maxRunningBatches is how many statements of one batcher run at once.
// A read that finds fewer running starts its batch at once, so a lone
// read waits for nothing; past that, reads gather in the next batch,
// which starts when a running one ends: a read waits for at most one
// statement before its own.
const maxRunningBatches = 2

// maxCoalesced bounds the reads of one statement: a batch that reaches it
// starts at once, whatever else runs.
const maxCoalesced = 64

// batcher coalesces concurrent reads of keys K into batches, each
// answered by one call of run.
type batcher[K comparable, V any] struct {
	run func(keys []K) (map[K]V, error)
	// timeout bounds each read from its asking (the store's query
	// timeout): a read never waits longer than a statement of its own
	// would, however long the statement ahead of its batch takes.
	timeout time.Duration

	mu      sync.Mutex
	next    *batch[K, V] // gathering reads, not started; nil for none
	running int
}

// batch is the reads of one statement: its keys, each once, and, once
// done is closed, their values or the error.
type batch[K comparable, V any] struct {
	keys   []K
	seen   map[K]bool
	done   chan struct{}
	values map[K]V
	err    error
}

func newBatcher[K comparable, V any](run func(keys []K) (map[K]V, error), timeout time.Duration) *batcher[K, V] {
	return &batcher[K, V]{run: run, timeout: timeout}
}

// read returns k's value (the zero V when run's map has none), read by a
// statement that starts after read is called, with concurrent reads.
func (b *batcher[K, V]) read(ctx context.Context, k K) (V, error) {
	if err := ctx.Err(); err != nil {
		// Ended already: no batch to join, and no answer that select
		// could pick over ctx.Done() when both are ready.
		var zero V
		return zero, err
	}
	b.mu.Lock()
	if b.next == nil {
		b.next = &batch[K, V]{seen: map[K]bool{}, done: make(chan struct{})}
	}
	bt := b.next
	if !bt.seen[k] {
		bt.seen[k] = true
		bt.keys = append(bt.keys, k)
	}
	if b.running < maxRunningBatches || len(bt.keys) >= maxCoalesced {
		b.running++
		b.next = nil
		b.mu.Unlock()
		go b.loop(bt)
	} else {
		b.mu.Unlock()
	}
	var expired <-chan time.Time
	if b.timeout > 0 {
		t := time.NewTimer(b.timeout)
		defer t.Stop()
		expired = t.C
	}
	var zero V
	select {
	case <-bt.done:
		return bt.values[k], bt.err
	case <-ctx.Done():
		return zero, ctx.Err()
	case <-expired:
		select {
		case <-bt.done: // answered as the timer fired
			return bt.values[k], bt.err
		default:
		}
		return zero, errBatchWait
	}
}

// errBatchWait is a batched read's error when its statement did not
// answer within the query timeout of the read's asking.
var errBatchWait = fmt.Errorf("the batched read did not answer within the query timeout: %w", context.DeadlineExceeded)

// loop runs bt, then the batch that gathered meanwhile, until none has.
func (b *batcher[K, V]) loop(bt *batch[K, V]) {
	for bt != nil {
		bt.values, bt.err = b.run(bt.keys)
		close(bt.done)
		b.mu.Lock()
		bt, b.next = b.next, nil
		if bt == nil {
			b.running--
		}
		b.mu.Unlock()
	}
}

// batches are the batchers of a store's hot reads.
type batches struct {
	versions *batcher[string, int64] // DataVersion
	invoices *invoicePages           // ListInvoices on pgx (prepared.go)
}

func newBatches(s *Store) *batches {
	return &batches{versions: newBatcher(s.readVersions, s.timeout), invoices: newInvoicePages(s)}
}

// batchError is the error of a batched read as the store returns it: nil;
// the batch's, which its statement has wrapped already (failure); or,
// when ctx ended while the read waited, ctx's, wrapped as failure wraps
// it (what says what was being read).
func batchError(ctx context.Context, what func() string, err error) error {
	if errors.Is(err, errBatchWait) && ctx.Err() == nil {
		return fmt.Errorf("bunstore: %s: %w: %w", what(), store.ErrUnavailable, err)
	}
	if err == nil || ctx.Err() == nil {
		return err
	}
	return failure(ctx, store.ErrUnavailable, what(), err)
}
