package webhook_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/webhook"
)

// TestDeriveKeyRefusesAWeakSecret: an empty secret (an unset variable)
// or one shorter than the signing key's minimum derives no key, with the
// message statusapi.WithSigningKey gives; a good one derives a key of
// KeySize, the same each time.
func TestDeriveKeyRefusesAWeakSecret(t *testing.T) {
	is := is.New(t)
	for _, secret := range []string{"", "short", strings.Repeat("k", statusapi.MinSigningKeyLen-1)} {
		k, err := webhook.DeriveKey([]byte(secret))
		is.True(err != nil) // refused
		is.Equal(k, nil)
		is.True(strings.Contains(err.Error(), "use at least 32 random bytes") || strings.Contains(err.Error(), "empty")) // says why
	}
	is.Equal(webhook.MinSecretLen, statusapi.MinSigningKeyLen) // one rule
	secret := []byte(strings.Repeat("k", statusapi.MinSigningKeyLen))
	k, err := webhook.DeriveKey(secret)
	is.NoErr(err)
	is.Equal(len(k), webhook.KeySize)
	again, err := webhook.DeriveKey(secret)
	is.NoErr(err)
	is.True(bytes.Equal(k, again))
	is.True(!bytes.Equal(k, secret[:webhook.KeySize])) // derived, not copied
}

// mustDeriveKey is DeriveKey of secret, which must be long enough.
func mustDeriveKey(secret string) []byte {
	k, err := webhook.DeriveKey([]byte(secret))
	if err != nil {
		panic(err)
	}
	return k
}
