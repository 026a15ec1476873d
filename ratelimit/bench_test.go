package ratelimit_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
)

// BenchmarkAllow measures one Allow of a growth organization in memory,
// across 1000 organizations so that most calls are allowed. redislimit's
// BenchmarkAllow measures the same on Redis.
func BenchmarkAllow(b *testing.B) {
	ps := make([]auth.Principal, 1000)
	for i := range ps {
		ps[i] = principal("org_"+strconv.Itoa(i), store.PlanGrowth, "")
	}
	lim := ratelimit.NewMemory()
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
