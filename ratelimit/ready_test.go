package ratelimit_test

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/ratelimit"
)

func TestPingMemory(t *testing.T) {
	is := is.New(t)
	is.NoErr(ratelimit.NewMemory().Ping(context.Background())) // memory is always ready
}
