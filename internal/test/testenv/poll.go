package testenv

import (
	"testing"
	"time"
)

// PollInterval is how often Poll and Until ask their condition again.
const PollInterval = 5 * time.Millisecond

// Poll asks cond every PollInterval until it returns nil, and fails the
// test with cond's last error when within passes first. cond's error says
// what is still awaited ("status 200, want 401").
//
// Poll and Until are for waiting on real I/O that a test cannot be told
// about: PostgreSQL or Redis back after an outage, a notification between
// replicas, another session's transaction. They are never for time to
// pass, which a test moves with testing/synctest or a Clock.
func Poll(t testing.TB, within time.Duration, cond func() error) {
	t.Helper()
	var err error
	if !Until(within, func() bool { err = cond(); return err == nil }) {
		t.Fatalf("not within %v: %v", within, err)
	}
}

// Until asks cond every PollInterval until it reports true, and returns
// true; or false once within has passed without. See Poll.
func Until(within time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	tick := time.NewTicker(PollInterval)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}
