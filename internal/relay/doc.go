// Package relay runs a process's one session with a channel outside it
// (PostgreSQL LISTEN, Redis SUBSCRIBE) for as long as anything in the
// process subscribes, and hands what arrives to every subscriber: the
// common part of bunstore's and auth/redisinvalidate's
// auth.Invalidations.
//
// A Hub starts its session on the first Subscribe and ends it when the
// last subscriber stops. When the session fails it opens another after a
// pause (backoff) that doubles up to MaxBackoff. Each time a session is
// up, the Hub reports the value New was given (auth.AllOrganizations) to
// every subscriber, since reports may have been missed while it was down;
// it logs the first failure of an outage as a warning and the recovery,
// not every retry. It imports nothing of the module: the callers pass
// auth's value.
package relay
