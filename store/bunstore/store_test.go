package bunstore_test

import (
	"testing"

	"github.com/clientstatus/clientstatus/store/bunstore"
	"github.com/clientstatus/clientstatus/store/storetest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) storetest.Subject {
		return bunstore.New(migrated(t))
	})
}
