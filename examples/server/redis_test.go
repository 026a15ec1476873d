package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/test/testenv"
)

// TestRedisSharedBudget runs two servers on one Redis, as two replicas,
// and checks that an organization's requests to both count against one
// budget.
func TestRedisSharedBudget(t *testing.T) {
	is := is.New(t)
	redisURL := testenv.RedisURL(t)
	// A prefix of its own, so that other tests and earlier runs in this
	// minute spend nothing of this budget.
	prefix := fmt.Sprintf("clientstatus-test:server:%d", time.Now().UnixNano())
	args := []string{"-data", contractFile, "-redis-url", redisURL, "-redis-prefix", prefix}
	a := startServer(t, nil, args...)
	b := startServer(t, map[string]string{"REDIS_URL": redisURL}, "-data", contractFile, "-redis-prefix", prefix)

	for i := 0; i < 30; i++ {
		is.Equal(call(t, "GET", a.url+"/v1/projects", "key-echo").status, 200)
		is.Equal(call(t, "GET", b.url+"/v1/projects", "key-echo").status, 200)
	}
	res := call(t, "GET", a.url+"/v1/projects", "key-echo")
	is.Equal(res.status, 429) // 60 a minute across both replicas
	is.Equal(res.errorCode(t), "RATE_LIMITED")
	is.Equal(call(t, "GET", b.url+"/v1/projects", "key-echo").status, 429)
}
