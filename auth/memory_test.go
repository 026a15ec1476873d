package auth_test

import (
	"testing"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/auth/authtest"
)

func TestMemoryKeyStore(t *testing.T) {
	authtest.RunKeyStore(t, func(t *testing.T) (auth.KeyStore, func(auth.Account)) {
		ks := auth.NewMemoryKeyStore()
		return ks, ks.PutAccount
	})
}
