package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"
)

// SecretPrefix starts every endpoint secret, as Standard Webhooks writes
// them: "whsec_" and the base64 of the key bytes.
const SecretPrefix = "whsec_"

// The headers of a delivery (Standard Webhooks).
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// errSecret is a secret that is not "whsec_" and base64.
var errSecret = errors.New("webhook: a secret is " + SecretPrefix + " and the standard base64 of 24 to 64 bytes")

// NewSecret returns a new random secret: "whsec_" and the base64 of 32
// bytes from crypto/rand.
func NewSecret() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// secretKey returns the key bytes of a secret ("whsec_" prefix optional,
// as the Standard Webhooks libraries accept both).
func secretKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || len(key) < 24 || len(key) > 64 {
		return nil, errSecret
	}
	return key, nil
}

// ValidSecret reports whether secret is one a portal may give an endpoint:
// "whsec_" and the base64 of 24 to 64 bytes.
func ValidSecret(secret string) bool {
	_, err := secretKey(secret)
	return err == nil && strings.HasPrefix(secret, SecretPrefix)
}

// Sign returns the Standard Webhooks signature of a message: "v1," and the
// base64 of HMAC-SHA256 over "id.timestamp.body" with the secret's key.
func Sign(secret, id string, at time.Time, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.", id, at.Unix())
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// signatures returns the webhook-signature header value for a message
// signed with each of secrets (the new one first during a rotation),
// space-separated.
func signatures(secrets []string, id string, at time.Time, body []byte) (string, error) {
	out := make([]string, 0, len(secrets))
	for _, s := range secrets {
		sig, err := Sign(s, id, at, body)
		if err != nil {
			return "", err
		}
		out = append(out, sig)
	}
	return strings.Join(out, " "), nil
}
