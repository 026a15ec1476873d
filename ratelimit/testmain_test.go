package ratelimit_test

import (
	"testing"

	"github.com/clientstatus/clientstatus/internal/test/testenv"
)

// TestMain says, even without -v, when tests skipped for want of a service.
func TestMain(m *testing.M) {
	testenv.Main(m)
}
