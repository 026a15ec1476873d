package statusapi

import (
	"context"
	"errors"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
)

// The parts Ready checks, as PartError names them.
const (
	PartStore    = "store"
	PartKeyStore = "key store"
	PartLimiter  = "limiter"
)

// PartError is the failure of one part in Ready's error.
type PartError struct {
	Part string // PartStore, PartKeyStore or PartLimiter
	Err  error
}

// Error returns the part's name and its error: "store: ...".
func (e *PartError) Error() string { return e.Part + ": " + e.Err.Error() }

// Unwrap returns the part's error.
func (e *PartError) Unwrap() error { return e.Err }

// Ready reports whether the parts a handler made by New reads from can
// serve, for a portal's readiness check (/readyz). Each of st, keys and
// lim declares Ping (store.Store, auth.KeyResolver, ratelimit.Limiter),
// and each is pinged, all at once: bunstore.Store runs a SELECT 1,
// auth.Keys, auth.Cache and auth.Chain ping what is behind them, a Redis
// ratelimit.PlanLimiter sends a PING; the in-memory parts answer nil. A
// nil part is left out, as ready: pass a nil lim to keep a replica whose
// limiter fails open (and so still serves) in service while Redis is
// down.
//
// Ready returns nil when every part answers, else the errors.Join of one
// *PartError per failing part, in the order store, key store, limiter
// ("store: bunstore: ping: ..."). It returns by the time ctx is done,
// counting a part that has not answered by then as failed with ctx's
// error; each part also applies its own timeout. The error may hold
// internals (host names, driver messages): log it, never send it to a
// client.
func Ready(ctx context.Context, st store.Store, keys auth.KeyResolver, lim ratelimit.Limiter) error {
	type pinger interface{ Ping(context.Context) error }
	parts := []struct {
		name string
		part pinger // nil (a nil argument): left out
	}{{PartStore, st}, {PartKeyStore, keys}, {PartLimiter, lim}}
	results := make([]chan error, len(parts))
	for i, p := range parts {
		results[i] = make(chan error, 1) // a Ping that outlives ctx finishes unread
		if p.part == nil {
			results[i] <- nil
			continue
		}
		go func() { results[i] <- p.part.Ping(ctx) }()
	}
	var errs []error
	for i, res := range results {
		var err error
		select {
		case err = <-res:
		case <-ctx.Done():
			select {
			case err = <-res:
			default:
				err = ctx.Err()
			}
		}
		if err != nil {
			errs = append(errs, &PartError{Part: parts[i].name, Err: err})
		}
	}
	return errors.Join(errs...)
}
