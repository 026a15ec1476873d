// Package skipper has one test that skips for want of PostgreSQL: the
// testenv test runs it with go test to see where the skip line goes.
package skipper

import (
	"testing"

	"github.com/clientstatus/clientstatus/internal/test/testenv"
)

func TestNeedsPostgres(t *testing.T) { testenv.PostgresURL(t) }

func TestMain(m *testing.M) { testenv.Main(m) }
