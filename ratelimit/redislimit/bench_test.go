package redislimit_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/ratelimit/redislimit"
	"github.com/clientstatus/clientstatus/store"
)

// BenchmarkAllow measures one Allow of a growth organization on the test
// Redis, across 1000 organizations so that most calls are allowed: a
// round trip to Redis, against ratelimit's BenchmarkAllow in memory.
func BenchmarkAllow(b *testing.B) {
	ps := make([]auth.Principal, 1000)
	for i := range ps {
		ps[i] = principal("org_"+strconv.Itoa(i), store.PlanGrowth, "")
	}
	lim := redislimit.New(newClient(b, ""), ratelimit.WithPrefix(testPrefix(b)),
		ratelimit.WithTimeout(5*time.Second), ratelimit.WithOutagePolicy(ratelimit.FailClosed))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, err := lim.Allow(context.Background(), ps[i%len(ps)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}
