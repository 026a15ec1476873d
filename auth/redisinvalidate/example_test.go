package redisinvalidate_test

import (
	"context"
	"log"
	"os"

	"github.com/redis/go-redis/v9"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/auth/redisinvalidate"
	"github.com/clientstatus/clientstatus/memstore"
)

// Replicas whose key store reports nothing share revocations through
// Redis. It needs a Redis server, so it is compiled but not run.
func ExampleNew() {
	opt, err := redis.ParseURL(os.Getenv("REDIS_URL")) // redis://:password@host:6379/0
	if err != nil {
		log.Fatal("REDIS_URL: not a redis:// URL") // the error may quote the password
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	ch := redisinvalidate.New(rdb)

	var ks auth.KeyStore = portalKeyStore()          // a KeyStore that reports nothing itself
	keys := auth.NewKeys(ks, auth.WithPublisher(ch)) // Revoke publishes; the other replicas' revocations are relayed
	defer keys.Close()
	resolver := auth.NewCache(keys) // forgets what any replica revokes, within about a second
	defer resolver.Close()          // ends the subscription

	// After the portal changes an organization (its retainer, its API
	// access, its plan), it tells every replica.
	if err := ch.Publish(context.Background(), "org_acme"); err != nil {
		log.Printf("replicas will see the change within their cache's ttl: %v", err)
	}
	_ = resolver // pass it to statusapi.New
}

// portalKeyStore stands for a portal's own KeyStore.
func portalKeyStore() auth.KeyStore {
	return struct{ auth.KeyStore }{auth.NewMemoryKeyStore(memstore.New())}
}
