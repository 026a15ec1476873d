package webhook

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
)

// KeySize is the size of the key that seals endpoint secrets at rest
// (AES-256-GCM).
const KeySize = 32

// MinSecretLen is the shortest secret DeriveKey accepts: 32 bytes, as
// statusapi.MinSigningKeyLen, so that the download links' signing key
// always qualifies.
const MinSecretLen = 32

// DeriveKey derives the key that seals endpoint secrets from another
// secret of the portal's, such as the key that signs its download links:
// HKDF-SHA-256 (RFC 5869) with no salt and the info
// "clientstatus webhook secrets v1", so the two keys never coincide and
// knowing the sealing key tells nothing of the other. It refuses a secret
// shorter than MinSecretLen, an empty one (an unset variable) first. A
// portal with a key of its own for this gives it to New as is.
func DeriveKey(secret []byte) ([]byte, error) {
	if len(secret) == 0 {
		return nil, errors.New("webhook: DeriveKey: got an empty secret (is the variable it comes from set?)")
	}
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("webhook: DeriveKey: the secret is %d bytes; use at least %d random bytes", len(secret), MinSecretLen)
	}
	k, err := hkdf.Key(sha256.New, secret, nil, "clientstatus webhook secrets v1", KeySize)
	if err != nil {
		return nil, fmt.Errorf("webhook: DeriveKey: %w", err)
	}
	return k, nil
}

// sealer encrypts endpoint secrets with AES-GCM. The associated data is
// the endpoint's organization and id, so a sealed secret copied to
// another endpoint's row does not open.
type sealer struct{ aead cipher.AEAD }

func newSealer(key []byte) sealer {
	if len(key) != KeySize {
		panic(fmt.Sprintf("webhook: the sealing key must be %d bytes (see DeriveKey), got %d", KeySize, len(key)))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		panic("webhook: " + err.Error())
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic("webhook: " + err.Error())
	}
	return sealer{aead}
}

func associated(orgID, id string) []byte { return []byte(orgID + "\x00" + id) }

// seal returns the nonce followed by the ciphertext of secret.
func (s sealer) seal(orgID, id, secret string) []byte {
	nonce := make([]byte, s.aead.NonceSize())
	rand.Read(nonce) // never fails (crypto/rand)
	return s.aead.Seal(nonce, nonce, []byte(secret), associated(orgID, id))
}

var errSealed = errors.New("webhook: a sealed secret does not open with this key: was the sealing key changed?")

func (s sealer) open(orgID, id string, sealed []byte) (string, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return "", errSealed
	}
	plain, err := s.aead.Open(nil, sealed[:n], sealed[n:], associated(orgID, id))
	if err != nil {
		return "", errSealed
	}
	return string(plain), nil
}
