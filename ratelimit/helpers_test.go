package ratelimit_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
)

// principal is a caller of org on plan, through key id keyID.
func principal(org string, plan store.Plan, keyID string) auth.Principal {
	return auth.Principal{
		Org:   store.Organization{ID: org, Plan: plan, RetainerActive: true, APIEnabled: true},
		KeyID: keyID,
	}
}

// allowN calls Allow n times for p, round robin over limiters (replicas),
// and returns how many were allowed. Any error fails the test.
func allowN(t *testing.T, p auth.Principal, n int, limiters ...ratelimit.Limiter) int {
	t.Helper()
	allowed := 0
	for i := range n {
		d, err := limiters[i%len(limiters)].Allow(context.Background(), p)
		if err != nil {
			t.Fatalf("Allow %d: %v", i+1, err)
		}
		if d.Allowed {
			allowed++
		}
	}
	return allowed
}

// quietLogger discards the limiter's warnings.
func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
