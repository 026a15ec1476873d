package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"strings"
)

// KeyPrefix starts every key that Keys.Mint makes. It is fixed so that
// secret scanners can recognise a leaked key.
const KeyPrefix = "csk_"

// SandboxKeyPrefix starts every sandbox key that Keys.MintSandbox makes
// ("csk_test_", then the same 38 characters as any minted key): a sandbox
// key reads its organization's sandbox (see SandboxOrgID), never its live
// data, and a reader of a log or a config file sees which kind it is.
const SandboxKeyPrefix = KeyPrefix + "test_"

const (
	base62      = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	randomChars = 32 // about 190 bits from crypto/rand
	checksumLen = 6  // CRC-32 of the random part, base62, zero-padded

	// maxCredentialLen bounds any credential looked up by hash.
	maxCredentialLen = 512
	// displayLen is how many leading characters of a minted key are kept
	// as its display prefix ("csk_AbCd").
	displayLen = 8
)

// HashKey returns the hex SHA-256 of key: what a KeyStore stores and looks
// keys up by.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// newKey returns a fresh key: KeyPrefix, 32 random base62 characters and
// 6 base62 characters of their CRC-32, like GitHub's ghp_ tokens.
func newKey(sandbox bool) (string, error) {
	random := make([]byte, 0, randomChars)
	buf := make([]byte, 64)
	for len(random) < randomChars {
		if _, err := rand.Read(buf); err != nil {
			return "", fmt.Errorf("auth: reading random bytes: %w", err)
		}
		for _, b := range buf {
			// 248 = 4*62: rejecting larger bytes keeps the characters uniform.
			if b < 248 && len(random) < randomChars {
				random = append(random, base62[b%62])
			}
		}
	}
	prefix := KeyPrefix
	if sandbox {
		prefix = SandboxKeyPrefix
	}
	return prefix + string(random) + checksum(string(random)), nil
}

// checksum returns the CRC-32 of s in checksumLen base62 characters.
func checksum(s string) string {
	n := crc32.ChecksumIEEE([]byte(s))
	out := make([]byte, checksumLen)
	for i := checksumLen - 1; i >= 0; i-- {
		out[i] = base62[n%62]
		n /= 62
	}
	return string(out)
}

// checkCredential refuses, before any lookup, a credential that cannot be
// a key: empty, longer than 512 bytes, holding anything but printable ASCII
// without spaces, or starting with KeyPrefix but not well formed (length,
// alphabet, checksum). Other credentials (keys imported from elsewhere) are
// left to the lookup.
func checkCredential(c string) error {
	if c == "" || len(c) > maxCredentialLen {
		return fmt.Errorf("%w: bad length", ErrInvalidKey)
	}
	for i := 0; i < len(c); i++ {
		if c[i] <= ' ' || c[i] > '~' {
			return fmt.Errorf("%w: bad character", ErrInvalidKey)
		}
	}
	if !strings.HasPrefix(c, KeyPrefix) {
		return nil
	}
	prefix := KeyPrefix
	if strings.HasPrefix(c, SandboxKeyPrefix) {
		prefix = SandboxKeyPrefix
	}
	if len(c) != len(prefix)+randomChars+checksumLen {
		return fmt.Errorf("%w: bad length", ErrInvalidKey)
	}
	random := c[len(prefix) : len(prefix)+randomChars]
	for i := 0; i < len(random); i++ {
		if strings.IndexByte(base62, random[i]) < 0 {
			return fmt.Errorf("%w: bad character", ErrInvalidKey)
		}
	}
	if c[len(prefix)+randomChars:] != checksum(random) {
		return fmt.Errorf("%w: bad checksum", ErrInvalidKey)
	}
	return nil
}

// displayPrefix returns the part of key that is safe to show: the first 8
// characters of a minted key (13 of a sandbox key, "csk_test_AbCd"), and of an imported key at most a third of it,
// so that a short imported key is never stored whole.
func displayPrefix(key string) string {
	n := displayLen
	if strings.HasPrefix(key, SandboxKeyPrefix) {
		n = len(SandboxKeyPrefix) + displayLen - len(KeyPrefix)
	}
	return key[:min(n, len(key)/3)]
}
