package auth_test

import (
	"testing"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/auth/authtest"
	"github.com/clientstatus/clientstatus/store"
)

func TestMemoryKeyStore(t *testing.T) {
	authtest.RunKeyStore(t, func(t *testing.T) (auth.KeyStore, func(store.Organization)) {
		ks := newKeyStore()
		return ks, ks.PutOrganization
	})
}
