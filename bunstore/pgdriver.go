package bunstore

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
)

// pingChannel is where a Store on Bun's pgdriver pings its own listening
// connection when it has been quiet (see pgdriverSession): a NOTIFY sent
// through the pool must come back on it.
const pingChannel = NotifyChannel + "_ping"

// listenDriver is how a Store listens for NotifyChannel.
type listenDriver int

const (
	listenPgx      listenDriver = iota // a pgx connection like the pool's, or WithListenConfig's
	listenPgdriver                     // pgdriver.Listener on the *bun.DB itself
)

// driverOf returns how a Store on db listens, and an error for a *bun.DB
// whose driver can do neither, unless WithListenConfig names a database
// to listen to through pgx. A bun.Tx or bun.Conn is not checked: it has
// no pool to listen through, and its Store is not subscribed to.
func driverOf(db bun.IDB, c config) (listenDriver, error) {
	d, ok := db.(*bun.DB)
	if !ok || c.listenConfig != nil {
		return listenPgx, nil
	}
	switch drv := d.DB.Driver().(type) {
	case *stdlib.Driver:
		return listenPgx, nil
	case pgdriver.Driver:
		return listenPgdriver, nil
	default:
		return 0, fmt.Errorf("bunstore: New: the *bun.DB's driver is a %T, which this Store cannot LISTEN through, so revoked keys would stay valid in caches for their whole ttl: open the database with pgx (bunstore.Open, or sql.Open(\"pgx\", dsn) after importing github.com/jackc/pgx/v5/stdlib) or with Bun's pgdriver (sql.OpenDB(pgdriver.NewConnector(...))), or give WithListenConfig a pgx configuration of the same database", drv)
	}
}

// pgdriverSession is session for a *bun.DB on Bun's pgdriver: it listens
// through a pgdriver.Listener (a connection of its own, made like the
// pool's), until the connection fails or ctx is done. A connection quiet
// for listenIdle is checked by a NOTIFY on pingChannel through the pool,
// which must come back within listenTimeout.
func (n *notifier) pgdriverSession(ctx context.Context, up func(), report func(string)) error {
	ln := pgdriver.NewListener(n.bun)
	ended := make(chan struct{})
	defer close(ended)
	go func() {
		// Closing the connection is what ends a wait: pgdriver reads
		// until its deadline, whatever ctx says.
		select {
		case <-ctx.Done():
		case <-ended:
		}
		_ = ln.Close()
	}()
	listenCtx, cancel := context.WithTimeout(ctx, listenTimeout)
	events, err := n.eventsChannel(listenCtx, func(ctx context.Context, dest any, sql string) error {
		return n.bun.QueryRowContext(ctx, sql).Scan(dest)
	})
	channels := []string{NotifyChannel, pingChannel}
	if err == nil && events != "" {
		channels = append(channels, events)
	}
	if err == nil {
		err = ln.Listen(listenCtx, channels...)
	}
	cancel()
	if err != nil {
		return fmt.Errorf("bunstore: listen (pgdriver): %w", err)
	}
	up()
	n.events.WakeAll() // events may have been missed while no one listened
	for {
		channel, payload, err := ln.ReceiveTimeout(ctx, listenIdle)
		switch {
		case err == nil:
			switch {
			case channel == NotifyChannel:
				report(payload)
			case channel == events && events != "":
				n.wakeEvents(payload)
			}
			continue
		case ctx.Err() != nil:
			return ctx.Err()
		case !isTimeout(err):
			return fmt.Errorf("bunstore: listen (pgdriver): %w", err)
		}
		// Quiet for listenIdle: a connection that no longer answers
		// would stay quiet for good.
		pingCtx, cancel := context.WithTimeout(ctx, listenTimeout)
		_, err = n.bun.ExecContext(pingCtx, "NOTIFY "+pingChannel)
		cancel()
		if err == nil {
			channel, payload, err = ln.ReceiveTimeout(ctx, listenTimeout)
		}
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			return fmt.Errorf("bunstore: listen (pgdriver): ping: %w", err)
		case channel == NotifyChannel:
			report(payload)
		case channel == events && events != "":
			n.wakeEvents(payload)
		}
	}
}

// isTimeout reports whether err is a read that reached its deadline.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
