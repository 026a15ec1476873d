package statusapi

import (
	"cmp"
	"context"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/store"
)

// Defaults of a RequestRecorder.
const (
	// DefaultRecorderBuffer is how many requests a RequestRecorder holds
	// between two writes; past it, requests are not recorded (Dropped
	// counts them) rather than wait.
	DefaultRecorderBuffer = 10_000
	// DefaultRecorderBatch is the most records one write to the sink
	// holds; a buffer that reaches it is written at once.
	DefaultRecorderBatch = 500
	// DefaultRecorderFlushInterval is how often the buffer is written
	// when it does not fill up first.
	DefaultRecorderFlushInterval = time.Second
	// DefaultRecorderPruneInterval is how often the recorder runs the
	// sink's retention job (store.RequestLog.PruneRequestLogs).
	DefaultRecorderPruneInterval = time.Hour
)

// Bounds of what one record keeps of a request: a path is cut at
// maxLoggedPath bytes, at most maxLoggedParams query parameter names are
// kept, each cut at maxLoggedParam bytes.
const (
	maxLoggedPath   = 2048
	maxLoggedParams = 32
	maxLoggedParam  = 128
)

// RequestRecorder records the requests of authenticated callers into a
// store.RequestLog, for GET /v1/request_logs and the usage per key; give
// it to New with WithRequestLog (one recorder may serve several
// handlers). A request only appends to a bounded buffer, never waiting:
// a full buffer drops the record (Dropped), a batch the sink refuses is
// lost (Lost). A record never holds a key, a token, a query value or a
// body. Close it after the HTTP server has stopped, so that the last
// requests are written. docs/handler.md, "Request log", says more.
type RequestRecorder struct {
	sink store.RequestLog
	cfg  recorderConfig

	mu     sync.Mutex
	buf    []pendingRequest
	spare  []pendingRequest // a written buffer, emptied, for the next one
	closed bool

	dropped, lost atomic.Int64

	wake chan struct{} // a batch is full
	stop chan struct{} // closed by Close
	done chan struct{} // closed when the flusher returns
	once sync.Once

	logMu    sync.Mutex
	loggedAt time.Time // when a lost batch was last logged
	unlogged int64     // records lost since

	// adopted is the logger of the handler the recorder was given to
	// (WithRequestLog), used when WithRecorderLogger set none.
	adopted atomic.Pointer[slog.Logger]
}

// pendingRequest is a request waiting in the buffer: its record, and its
// raw query, from which the flusher takes the names off the request path.
type pendingRequest struct {
	rec      store.RequestRecord
	rawQuery string
}

// RecorderOption configures NewRequestRecorder. As every option of the
// module (see package [github.com/clientstatus/clientstatus/option]), a
// nil RecorderOption is ignored, a zero value keeps the default, and a
// negative one is an *option.Error with which NewRequestRecorder panics
// and which ValidateRecorder returns.
type RecorderOption func(*recorderConfig)

type recorderConfig struct {
	buffer, batch int
	flush, prune  time.Duration
	logger        *slog.Logger // WithRecorderLogger's; nil: see RequestRecorder.logger
	option.Check
}

// WithRecorderBuffer sets how many requests wait in the buffer at most
// (DefaultRecorderBuffer).
func WithRecorderBuffer(n int) RecorderOption {
	return func(c *recorderConfig) {
		option.NonNegative(&c.Check, "statusapi", "WithRecorderBuffer", &c.buffer, n, DefaultRecorderBuffer)
	}
}

// WithRecorderBatch sets the most records of one write
// (DefaultRecorderBatch).
func WithRecorderBatch(n int) RecorderOption {
	return func(c *recorderConfig) {
		option.NonNegative(&c.Check, "statusapi", "WithRecorderBatch", &c.batch, n, DefaultRecorderBatch)
	}
}

// WithRecorderFlushInterval sets how often the buffer is written
// (DefaultRecorderFlushInterval).
func WithRecorderFlushInterval(d time.Duration) RecorderOption {
	return func(c *recorderConfig) {
		option.NonNegative(&c.Check, "statusapi", "WithRecorderFlushInterval", &c.flush, d, DefaultRecorderFlushInterval)
	}
}

// WithRecorderPruneInterval sets how often the sink's retention job runs
// (DefaultRecorderPruneInterval).
func WithRecorderPruneInterval(d time.Duration) RecorderOption {
	return func(c *recorderConfig) {
		option.NonNegative(&c.Check, "statusapi", "WithRecorderPruneInterval", &c.prune, d, DefaultRecorderPruneInterval)
	}
}

// WithRecorderLogger sets where failed writes are logged; nil keeps the
// default: the logger of the handler the recorder is given to
// (statusapi.New's WithLogger, through WithRequestLog), or slog.Default()
// before it is given to one. So a server sets its logger in one place,
// WithLogger.
func WithRecorderLogger(l *slog.Logger) RecorderOption {
	return func(c *recorderConfig) {
		c.logger = l
	}
}

// newRecorderConfig applies opts to the defaults and reports the first
// value no default stands for.
func newRecorderConfig(opts []RecorderOption) (recorderConfig, error) {
	cfg := recorderConfig{
		buffer: DefaultRecorderBuffer, batch: DefaultRecorderBatch,
		flush: DefaultRecorderFlushInterval, prune: DefaultRecorderPruneInterval,
	}
	option.Apply(&cfg, opts)
	return cfg, cfg.Err()
}

// ValidateRecorder reports the *option.Error NewRequestRecorder would
// panic with for opts, or nil.
func ValidateRecorder(opts ...RecorderOption) error {
	_, err := newRecorderConfig(opts)
	return err
}

// NewRequestRecorder returns a recorder writing into sink (usually the
// handler's store, as memstore.Store and bunstore implement
// store.RequestLog) and starts its flusher. It panics when sink is nil,
// and with the *option.Error ValidateRecorder reports when an option is
// given a negative value. Close it on shutdown.
func NewRequestRecorder(sink store.RequestLog, opts ...RecorderOption) *RequestRecorder {
	if sink == nil {
		panic("statusapi: NewRequestRecorder needs a store.RequestLog")
	}
	cfg, err := newRecorderConfig(opts)
	if err != nil {
		panic(err)
	}
	rr := &RequestRecorder{
		sink: sink, cfg: cfg,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
	go rr.run()
	return rr
}

// logger is where the recorder logs: WithRecorderLogger's, else the
// handler's it was given to, else slog.Default().
func (rr *RequestRecorder) logger() *slog.Logger {
	if rr.cfg.logger != nil {
		return rr.cfg.logger
	}
	if l := rr.adopted.Load(); l != nil {
		return l
	}
	return slog.Default()
}

// adopt makes l the recorder's logger unless WithRecorderLogger set one
// or a handler gave one first.
func (rr *RequestRecorder) adopt(l *slog.Logger) {
	if l != nil {
		rr.adopted.CompareAndSwap(nil, l)
	}
}

// record appends a request to the buffer, or counts it dropped when the
// buffer is full or the recorder closed. It never waits for the sink.
func (rr *RequestRecorder) record(p pendingRequest) {
	rr.mu.Lock()
	if rr.closed || len(rr.buf) >= rr.cfg.buffer {
		rr.mu.Unlock()
		rr.dropped.Add(1)
		return
	}
	rr.buf = append(rr.buf, p)
	full := len(rr.buf) == rr.cfg.batch
	rr.mu.Unlock()
	if full {
		select {
		case rr.wake <- struct{}{}:
		default:
		}
	}
}

// run is the flusher: it writes the buffer every flush interval or when
// a batch is full, prunes every prune interval, and returns on Close.
func (rr *RequestRecorder) run() {
	defer close(rr.done)
	flush := time.NewTicker(rr.cfg.flush)
	defer flush.Stop()
	prune := time.NewTicker(rr.cfg.prune)
	defer prune.Stop()
	for {
		select {
		case <-rr.stop:
			return
		case <-flush.C:
		case <-rr.wake:
		case <-prune.C:
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			if _, err := rr.sink.PruneRequestLogs(ctx); err != nil {
				rr.logger().Warn("statusapi: request log: retention job failed", "err", err.Error())
			}
			cancel()
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_ = rr.Flush(ctx) // counted and logged by Flush
		cancel()
	}
}

// Flush writes what the buffer holds now to the sink, in batches, and
// returns the first error (the batches it could not write are lost, and
// counted by Lost). The flusher calls it on its own; a portal or a test
// calls it to see the requests answered so far in the log at once.
func (rr *RequestRecorder) Flush(ctx context.Context) error {
	rr.mu.Lock()
	pending := rr.buf
	rr.buf, rr.spare = rr.spare, nil
	rr.mu.Unlock()
	defer func() {
		// The buffer is used again (no allocation on the request path
		// once both have grown), without what it referred to.
		clear(pending)
		rr.mu.Lock()
		if rr.spare == nil {
			rr.spare = pending[:0]
		}
		rr.mu.Unlock()
	}()
	var first error
	for batch := range slices.Chunk(pending, rr.cfg.batch) {
		records := make([]store.RequestRecord, len(batch))
		for i, p := range batch {
			records[i] = finished(p)
		}
		if err := rr.sink.AppendRequests(ctx, records); err != nil {
			rr.lost.Add(int64(len(records)))
			rr.logLost(len(records), err)
			first = cmp.Or(first, err)
		}
	}
	return first
}

// logLost logs a batch the sink refused, at most once a minute, with the
// number of records lost since the last line.
func (rr *RequestRecorder) logLost(n int, err error) {
	rr.logMu.Lock()
	defer rr.logMu.Unlock()
	rr.unlogged += int64(n)
	if now := time.Now(); rr.loggedAt.IsZero() || now.Sub(rr.loggedAt) >= time.Minute {
		rr.logger().Error("statusapi: request log: records lost, the sink refused them",
			"records", rr.unlogged, "err", err.Error())
		rr.loggedAt, rr.unlogged = now, 0
	}
}

// Close stops recording (later requests are dropped and counted), stops
// the flusher and writes what the buffer holds, within ctx. It returns
// the error of that last write, or ctx's when it is done first; calling
// it again does nothing and returns nil.
func (rr *RequestRecorder) Close(ctx context.Context) error {
	first := false
	rr.once.Do(func() {
		first = true
		rr.mu.Lock()
		rr.closed = true
		rr.mu.Unlock()
		close(rr.stop)
	})
	if !first {
		return nil
	}
	select {
	case <-rr.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return rr.Flush(ctx)
}

// Dropped returns how many requests were not recorded because the buffer
// was full or the recorder closed. otelstatus.ObserveRecorder reports it
// as a metric.
func (rr *RequestRecorder) Dropped() int64 { return rr.dropped.Load() }

// Lost returns how many records were in batches the sink refused (a
// database outage): they are not retried. otelstatus.ObserveRecorder
// reports it as a metric.
func (rr *RequestRecorder) Lost() int64 { return rr.lost.Load() }

// finished completes a pending request's record: the names of its query
// parameters, and every text made storable (valid UTF-8 without NUL) and
// bounded.
func finished(p pendingRequest) store.RequestRecord {
	rec := p.rec
	rec.Query = queryNames(p.rawQuery)
	rec.Path = storableText(rec.Path, maxLoggedPath)
	rec.ID = storableText(rec.ID, len(rec.ID))
	rec.KeyID = storableText(rec.KeyID, len(rec.KeyID))
	return rec
}

// queryNames returns the names of the parameters of a raw query, decoded,
// sorted and each once, bounded as a record keeps them; never a value.
func queryNames(raw string) []string {
	names := []string{}
	for raw != "" {
		var part string
		part, raw, _ = strings.Cut(raw, "&")
		name, _, _ := strings.Cut(part, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if name != "" {
			names = append(names, storableText(name, maxLoggedParam))
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	return names[:min(len(names), maxLoggedParams)]
}

// storableText returns s cut at max bytes, with invalid UTF-8 (a cut rune
// too) replaced and NULs removed: text every store keeps exactly.
func storableText(s string, max int) string {
	if len(s) > max {
		s = s[:max]
	}
	if store.Storable(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}
