// Package redisinvalidate carries auth's cache invalidations between the
// replicas of a deployment over Redis pub/sub, for replicas that share
// Redis but whose key store does not report changes itself (a portal's
// own KeyStore or KeyResolver; bunstore reports through PostgreSQL
// and needs none of this).
//
// A Channel is an auth.Publisher and an auth.Invalidations on one Redis
// channel. Give it to Keys, which then publishes each key it revokes and
// relays what the other replicas publish to the Cache in front of it:
//
//	ch := redisinvalidate.New(rdb)
//	keys := auth.NewKeys(ks, auth.WithPublisher(ch))
//	resolver := auth.NewCache(keys)
//	defer resolver.Close()
//	...
//	err := ch.Publish(ctx, orgID) // after the portal changes an organization
//
// It is a package of its own so that package auth keeps to the standard
// library.
package redisinvalidate
