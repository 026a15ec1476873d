package devsettings

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"strings"
)

// newNonce returns 128 random bits for the Content-Security-Policy's
// nonce of one answer.
func newNonce() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// securityHeaders sets the headers the contract asks of every page: a
// Content-Security-Policy that runs only the page's own nonced script and
// style and loads nothing, framed only by 'self' and ancestors; nosniff;
// Referrer-Policy same-origin; Cache-Control no-store.
func securityHeaders(h http.Header, nonce string, ancestors []string) {
	frame := "'self'"
	if len(ancestors) > 0 {
		frame += " " + strings.Join(ancestors, " ")
	}
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'nonce-"+nonce+"'; style-src 'nonce-"+nonce+
		"'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors "+frame)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}
