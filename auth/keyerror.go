package auth

import "fmt"

// Refusals of a key that exists, wrapped in a *KeyError: both wrap
// ErrInvalidKey, so the handler answers them 401 UNAUTHORIZED as any
// other invalid key.
var (
	// ErrRevoked is a key revoked with Keys.Revoke (or in the KeyStore).
	ErrRevoked = fmt.Errorf("%w: revoked", ErrInvalidKey)
	// ErrExpired is a key past its ExpiresAt.
	ErrExpired = fmt.Errorf("%w: expired", ErrInvalidKey)
)

// KeyError is Keys.Resolve's refusal of a key it knows: revoked
// (ErrRevoked) or expired (ErrExpired). It names the key by its public
// id and organization, never by the key itself, so that a portal can
// log which client still uses an old key (statusapi does). Test it with
// errors.Is(err, auth.ErrRevoked) or errors.As(err, &keyErr).
type KeyError struct {
	KeyID string // the key's Key.ID, such as "key_..."
	OrgID string // its organization
	Err   error  // ErrRevoked or ErrExpired
}

// Error returns the refusal and the key's id: "auth: invalid key:
// revoked (key key_123)".
func (e *KeyError) Error() string { return e.Err.Error() + " (key " + e.KeyID + ")" }

// Unwrap returns Err, which wraps ErrInvalidKey.
func (e *KeyError) Unwrap() error { return e.Err }
