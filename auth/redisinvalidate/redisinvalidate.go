package redisinvalidate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/relay"
	"github.com/clientstatus/clientstatus/option"
)

// DefaultChannel is the Redis channel a Channel uses given no
// WithChannel.
const DefaultChannel = "clientstatus:auth"

// How the subscription is watched: a quiet one is pinged after idle, and
// one that does not answer within another idle has failed.
const idle = 15 * time.Second

// Channel is an auth.Publisher and an auth.Invalidations on one Redis
// pub/sub channel, whose messages are organization ids ("" for every
// organization). It is safe for concurrent use.
type Channel struct {
	rdb  redis.UniversalClient
	name string
	hub  *relay.Hub
}

var (
	_ auth.Publisher     = (*Channel)(nil)
	_ auth.Invalidations = (*Channel)(nil)
)

// Option configures New. Options follow the module's one policy (see
// package [github.com/clientstatus/clientstatus/option]): a nil Option is
// ignored and nil or a zero value means the option's default; no value of
// these options is an error.
type Option func(*config)

type config struct {
	channel string
	logger  *slog.Logger
}

// WithChannel sets the Redis channel; "" means DefaultChannel. Replicas of
// one deployment use the same; deployments sharing a Redis each use their
// own.
func WithChannel(name string) Option {
	return func(c *config) { c.channel = cmp.Or(name, DefaultChannel) }
}

// WithLogger sets where the Channel reports the state of its subscription:
// lost, or back; nil means slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = cmp.Or(l, slog.Default()) }
}

// New returns a Channel on rdb, a single node, Sentinel or Cluster
// client. It does not contact Redis: Publish does, and Subscribe opens a
// subscription of its own while anything subscribes. It panics when rdb is
// nil.
func New(rdb redis.UniversalClient, opts ...Option) *Channel {
	if rdb == nil {
		panic("redisinvalidate: New needs a Redis client")
	}
	c := config{channel: DefaultChannel, logger: slog.Default()}
	option.Apply(&c, opts)
	ch := &Channel{rdb: rdb, name: c.channel}
	ch.hub = relay.New("Redis channel "+c.channel, c.logger, ch.session, auth.AllOrganizations)
	return ch
}

// Publish tells every replica subscribed to the channel, this one
// included, that the organization's keys or account changed
// (auth.AllOrganizations: every organization's). The error wraps
// auth.ErrUnavailable when Redis could not be reached; replicas then see
// the change within their caches' ttl.
func (c *Channel) Publish(ctx context.Context, orgID string) error {
	if err := c.rdb.Publish(ctx, c.name, orgID).Err(); err != nil {
		return fmt.Errorf("redisinvalidate: publish: %w: %w", auth.ErrUnavailable, err)
	}
	return nil
}

// Subscribe registers fn, to be called with each organization id published
// on the channel, by any replica (see auth.Invalidations for fn's rules).
//
// While anything subscribes, the Channel holds one subscription, on a
// connection of its own, pinged when quiet for 15s. When it fails, the
// Channel logs it once (WithLogger) and subscribes again, with a pause
// doubling from 100ms to 2s: meanwhile caches see other replicas' changes
// only within their ttl, and once subscribed again fn is called with
// auth.AllOrganizations, as messages may have been missed. The last stop
// ends the subscription.
func (c *Channel) Subscribe(fn func(orgID string)) (stop func()) {
	return c.hub.Subscribe(fn)
}

// session holds one subscription until it fails or ctx is done.
func (c *Channel) session(ctx context.Context, up func(), report func(string)) error {
	ps := c.rdb.Subscribe(ctx)
	defer ps.Close()
	// Closing the subscription is what ends a Receive under way.
	defer context.AfterFunc(ctx, func() { ps.Close() })()
	if err := ps.Subscribe(ctx, c.name); err != nil {
		return fmt.Errorf("redisinvalidate: subscribe: %w", err)
	}
	pinged := false
	for {
		msg, err := ps.ReceiveTimeout(ctx, idle)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && timeout(err) && !pinged:
			// Quiet for idle: a connection that no longer answers (a
			// server or a network that hangs) would stay quiet for good.
			if err := ps.Ping(ctx); err != nil {
				return fmt.Errorf("redisinvalidate: ping: %w", err)
			}
			pinged = true
			continue
		case err != nil && timeout(err):
			return errors.New("redisinvalidate: no answer to a ping")
		case err != nil:
			return fmt.Errorf("redisinvalidate: receive: %w", err)
		}
		pinged = false
		switch m := msg.(type) {
		case *redis.Subscription:
			if m.Kind == "subscribe" && m.Channel == c.name {
				up()
			}
		case *redis.Message:
			report(m.Payload)
		}
	}
}

// timeout reports whether err is a read that timed out.
func timeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
