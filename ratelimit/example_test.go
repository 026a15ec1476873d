package ratelimit_test

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/store"
)

func ExampleNewMemory() {
	lim := ratelimit.NewMemory(
		ratelimit.WithRate(store.PlanStarter, ratelimit.Rate{Limit: 2, Period: time.Minute}),
	)
	p := auth.Principal{Org: store.Organization{ID: "org_a", Plan: store.PlanStarter}}
	for range 3 {
		d, err := lim.Allow(context.Background(), p)
		if err != nil {
			panic(err) // only a store outage under FailClosed
		}
		h := http.Header{}
		d.WriteHeaders(h, time.Now())
		fmt.Println(d.Allowed, h.Get("X-RateLimit-Remaining"), h.Get("Retry-After") != "")
	}
	// Output:
	// true 1 false
	// true 0 false
	// false 0 true
}
