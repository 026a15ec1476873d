package redislimit_test

import (
	"context"
	"log"
	"os"

	"github.com/redis/go-redis/v9"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/ratelimit/redislimit"
	"github.com/clientstatus/clientstatus/store"
)

// A limiter that every replica shares through one Redis. It needs a Redis
// server, so it is compiled but not run.
func ExampleNew() {
	opt, err := redis.ParseURL(os.Getenv("REDIS_URL")) // redis://:password@host:6379/0
	if err != nil {
		log.Fatal("REDIS_URL: not a redis:// URL") // the error may quote the password
	}
	opt.ContextTimeoutEnabled = true // a call abandoned at the limiter's timeout frees its connection
	rdb := redis.NewClient(opt)
	defer rdb.Close()

	lim := redislimit.New(rdb, ratelimit.WithOutagePolicy(ratelimit.FailClosed))
	ctx := context.Background()
	if err := lim.Ping(ctx); err != nil {
		log.Printf("not ready: %v", err) // a readiness check answers 503
	}

	// Pass lim to statusapi.New; it calls Allow for each request.
	p := auth.Principal{Org: store.Organization{ID: "org_a", Plan: store.PlanStarter}}
	d, err := lim.Allow(ctx, p)
	if err != nil {
		log.Fatal(err) // Redis out, under FailClosed: 503
	}
	log.Println(d.Allowed, d.Remaining)
}
