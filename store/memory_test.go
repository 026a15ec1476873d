package store_test

import (
	"testing"

	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/store/storetest"
)

func TestMemoryConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Subject { return store.NewMemory() })
}
