// Package jwtauth is an auth.KeyResolver of JSON Web Tokens that a portal
// signs, for portals that prefer them to stored API keys. It is a package
// of its own so that package auth depends on the standard library only.
//
// A token is accepted only when its "alg" is Config.Algorithm (any other,
// "none" included, is refused) and its signature verifies with Config.Key;
// "exp" is present and not past, "nbf" and "iat" not in the future (with
// DefaultLeeway); "iss" and "aud" match Config; and the organization claim
// ("org", see WithOrgClaim) names an organization the store knows. "sub"
// becomes the Principal's Subject and "exp" its Expiry. The optional
// claims "scope" and "project_ids" restrict the token as an
// auth.Restriction restricts a key. The claims in detail: docs/keys.md.
//
//	jwts, err := jwtauth.New(jwtauth.Config{Algorithm: "RS256", Key: pub,
//		Issuer: "https://portal.example.com", Audience: "clientstatus"}, st)
//	resolver := auth.NewCache(auth.Chain(keys, jwts))
package jwtauth
