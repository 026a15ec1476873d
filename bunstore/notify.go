package bunstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/relay"
	"github.com/clientstatus/clientstatus/internal/wake"
)

// NotifyChannel is the PostgreSQL channel on which the store's triggers
// send the id of an organization whose keys or account changed (see
// Subscribe), "" for every organization.
const NotifyChannel = "clientstatus_auth"

// How the listening connection is watched: a quiet connection is pinged
// after listenIdle, and a ping, a connection or a LISTEN that takes
// longer than listenTimeout counts as a failure.
const (
	listenIdle    = 15 * time.Second
	listenTimeout = 5 * time.Second
)

var _ auth.Invalidations = (*Store)(nil)

// WithLogger sets where the Store reports the state of its listening
// connection (see Subscribe): lost, back, or impossible. nil means
// slog.Default(), the default.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = cmp.Or(l, slog.Default()) }
}

// WithListenConfig makes Subscribe listen through a connection of cfg
// (made by pgx.ParseConfig) instead of one like the pool's: for a pool that
// goes through PgBouncer in transaction mode, where LISTEN does not work,
// give the database's own address. nil means one like the pool's.
func WithListenConfig(cfg *pgx.ConnConfig) Option {
	return func(c *config) { c.listenConfig = cfg }
}

// Subscribe makes the Store an auth.Invalidations: fn is called with the id
// of each organization whose keys or account change in the database, from
// whichever process or SQL statement (triggers NOTIFY on NotifyChannel at
// commit), usually within milliseconds; a PutOrganization through this
// Store reports at once. While anything subscribes, the Store holds one
// connection of its own that LISTENs (through pgx or Bun's pgdriver; any
// other driver needs WithListenConfig); when it fails, the Store logs it
// once, reconnects with backoff, and then calls fn with
// auth.AllOrganizations, as changes may have been missed. See
// auth.Invalidations for fn's rules.
func (s *Store) Subscribe(fn func(orgID string)) (stop func()) {
	return s.notify.hub.Subscribe(fn)
}

// changed tells the Store's subscribers in this process that the
// organization changed, at once, for a write made through the Store: the
// NOTIFY of its trigger follows, for every process, when it commits.
func (s *Store) changed(orgID string) {
	s.notify.hub.Report(orgID)
}

// notifier is the Store's listening side, shared by its copies: one
// connection that LISTENs on NotifyChannel for Subscribe, and on the
// schema's events channel for WatchEvents (clientstatus_events_channel of
// the migration 20261001000002_events), while either has anyone.
type notifier struct {
	db     *sql.DB // nil when the Store's db is not a pool
	bun    *bun.DB // the same, as Bun's; nil likewise
	driver listenDriver
	hub    *relay.Hub
	schema string // WithSchema's, to name the events channel's function

	mu  sync.Mutex
	cfg *pgx.ConnConfig // of the listening connection, once known

	events   wake.Set // WatchEvents' watchers, woken by organization
	watchMu  sync.Mutex
	watching int    // WatchEvents' watchers, which keep the hub subscribed
	unwatch  func() // ends the hub subscription they hold
}

func newNotifier(db any, c config, driver listenDriver) *notifier {
	n := &notifier{db: pool(db), cfg: c.listenConfig, driver: driver, schema: c.schema}
	n.bun, _ = db.(*bun.DB)
	n.hub = relay.New("PostgreSQL LISTEN "+NotifyChannel, c.logger, n.session, auth.AllOrganizations)
	return n
}

// pool returns the *sql.DB behind db, or nil when there is none (a
// transaction's Store has no pool to listen through).
func pool(db any) *sql.DB {
	if d, ok := db.(*bun.DB); ok && d != nil {
		return d.DB
	}
	return nil
}

// session listens on one connection until it fails or ctx is done.
func (n *notifier) session(ctx context.Context, up func(), report func(string)) error {
	if n.driver == listenPgdriver {
		return n.pgdriverSession(ctx, up, report)
	}
	cfg, err := n.config(ctx)
	if err != nil {
		return err
	}
	connectCtx, cancel := context.WithTimeout(ctx, listenTimeout)
	conn, err := pgx.ConnectConfig(connectCtx, cfg)
	cancel()
	if err != nil {
		return fmt.Errorf("bunstore: listen: %w", err)
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), listenTimeout)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	listenCtx, cancel := context.WithTimeout(ctx, listenTimeout)
	events, err := n.listen(listenCtx, conn)
	cancel()
	if err != nil {
		return fmt.Errorf("bunstore: listen: %w", err)
	}
	up()
	n.events.WakeAll() // events may have been missed while no one listened
	for {
		waitCtx, cancel := context.WithTimeout(ctx, listenIdle)
		note, err := conn.WaitForNotification(waitCtx)
		cancel()
		switch {
		case err == nil && note.Channel == events && events != "":
			n.wakeEvents(note.Payload)
			continue
		case err == nil:
			report(note.Payload)
			continue
		case ctx.Err() != nil:
			return ctx.Err()
		case !errors.Is(err, context.DeadlineExceeded):
			return fmt.Errorf("bunstore: listen: %w", err)
		}
		// Quiet for listenIdle: a connection that no longer answers (a
		// server or a network that hangs) would stay quiet for good.
		pingCtx, cancel := context.WithTimeout(ctx, listenTimeout)
		err = conn.Ping(pingCtx)
		cancel()
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("bunstore: listen: ping: %w", err)
		}
	}
}

// listen LISTENs on NotifyChannel and on the schema's events channel,
// which it returns ("" when the schema has no events yet: an older
// migration).
func (n *notifier) listen(ctx context.Context, conn *pgx.Conn) (string, error) {
	events, err := n.eventsChannel(ctx, func(ctx context.Context, dest any, sql string) error {
		return conn.QueryRow(ctx, sql).Scan(dest)
	})
	if err != nil {
		return "", err
	}
	sql := "LISTEN " + NotifyChannel
	if events != "" {
		sql += "; LISTEN " + pgx.Identifier{events}.Sanitize()
	}
	_, err = conn.Exec(ctx, sql)
	return events, err
}

// eventsChannel returns the name of the schema's events channel, read
// through scan (one value of one row), or "" when the schema has no events
// yet (an older migration). Both drivers' sessions use it.
func (n *notifier) eventsChannel(ctx context.Context, scan func(ctx context.Context, dest any, sql string) error) (string, error) {
	fn := "clientstatus_events_channel"
	if n.schema != "" {
		fn = pgx.Identifier{n.schema, fn}.Sanitize()
	}
	var migrated bool
	// No placeholder: Bun's DB formats its own (?) and pgx's conn takes
	// $1, so the name goes in as a literal.
	literal := "'" + strings.ReplaceAll(fn, "'", "''") + "'"
	if err := scan(ctx, &migrated, "SELECT to_regproc("+literal+") IS NOT NULL"); err != nil {
		return "", err
	}
	if !migrated {
		return "", nil
	}
	var events string
	err := scan(ctx, &events, "SELECT "+fn+"()")
	return events, err
}

// wakeEvents wakes the watchers of the organization a notification on the
// events channel names (all of them for an empty payload).
func (n *notifier) wakeEvents(payload string) {
	if payload == "" {
		n.events.WakeAll()
		return
	}
	n.events.Wake(payload)
}

// watchEvents is WatchEvents: a watcher of orgID, which holds a
// subscription to the hub (so its connection listens) until ctx is done.
func (n *notifier) watchEvents(ctx context.Context, orgID string) <-chan struct{} {
	n.watchMu.Lock()
	n.watching++
	if n.watching == 1 {
		n.unwatch = n.hub.Subscribe(func(string) {}) // the events come through n.events
	}
	n.watchMu.Unlock()
	ch := n.events.Watch(ctx, orgID)
	context.AfterFunc(ctx, func() {
		n.watchMu.Lock()
		n.watching--
		var stop func()
		if n.watching == 0 {
			stop, n.unwatch = n.unwatch, nil
		}
		n.watchMu.Unlock()
		if stop != nil {
			stop()
		}
	})
	return ch
}

// config returns the configuration of the listening connection:
// WithListenConfig's, or that of a connection of the pool, read once. It
// is a copy that reports notifications to WaitForNotification, and whose
// context only sets a deadline: a cancel request, which the pool's
// connections send (see Open), could otherwise cancel the next ping.
func (n *notifier) config(ctx context.Context) (*pgx.ConnConfig, error) {
	n.mu.Lock()
	cfg := n.cfg
	n.mu.Unlock()
	if cfg == nil {
		if n.db == nil {
			return nil, fmt.Errorf("%w: bunstore: listen: the Store's db is not a *bun.DB (a pool)", relay.ErrGiveUp)
		}
		var err error
		if cfg, err = poolConfig(ctx, n.db); err != nil {
			return nil, err
		}
		n.mu.Lock()
		n.cfg = cfg
		n.mu.Unlock()
	}
	cfg = cfg.Copy()
	cfg.OnNotification = nil // pgx then queues them for WaitForNotification
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: pc.Conn()}
	}
	return cfg, nil
}

// poolConfig returns the configuration of db's connections, read from one
// of them: there is no other way to it through database/sql.
func poolConfig(ctx context.Context, db *sql.DB) (*pgx.ConnConfig, error) {
	ctx, cancel := context.WithTimeout(ctx, listenTimeout)
	defer cancel()
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("bunstore: listen: %w", err)
	}
	defer conn.Close()
	var cfg *pgx.ConnConfig
	err = conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("%w: bunstore: listen: the database driver's connection is a %T, not pgx's", relay.ErrGiveUp, driverConn)
		}
		cfg = c.Conn().Config() // a copy
		return nil
	})
	return cfg, err
}
