// Package jwtauth is an auth.KeyResolver of JSON Web Tokens that a portal
// signs, for portals that prefer them to stored API keys. It is a package
// of its own so that package auth depends on the standard library only:
// the JWT library (github.com/golang-jwt/jwt/v5) is linked in only by
// those who import jwtauth.
//
// A token is accepted only when all of these hold:
//
//   - its "alg" header is the one Config.Algorithm names, and its signature
//     verifies with Config.Key: any other algorithm, "none" included, is
//     refused;
//   - "exp" is present, and now is before it;
//   - "nbf" and "iat", when present, are not in the future;
//   - "iss" equals Config.Issuer and "aud" (a string or a list) holds
//     Config.Audience;
//   - the organization claim ("org" unless WithOrgClaim names another) is a
//     string of 1 to 200 bytes naming an organization that the
//     store.Organizations given to New knows.
//
// The times are checked with a leeway for clock skew (DefaultLeeway, see
// WithLeeway). "sub", optional, becomes the Principal's Subject, for logs;
// "exp" its Expiry, so a Cache in front forgets the token when it expires.
//
// A token may be restricted as an API key is (auth.Restriction), by two
// optional claims:
//
//   - "scope", the scopes it may read, space-separated as in RFC 8693
//     ("projects:read invoices:read"). Names that are not scopes of the
//     API (auth.AllScopes) grant nothing and are ignored, so a token whose
//     scope names none of them may call only the routes that need no
//     scope. Absent: every scope.
//   - "project_ids", an array of the project ids it may see (["p1"]);
//     an empty array sees no project. Absent: every project. The ids are
//     not looked up: one that names no project matches nothing.
//
// A "scope" that is not a string, or a "project_ids" that is not an array
// of non-empty strings (null included), refuses the token. Other claims
// are ignored.
//
// A portal signs, for example:
//
//	{"iss": "https://portal.example.com", "aud": "clientstatus",
//	 "sub": "user_1", "org": "org_acme", "iat": 1767225600, "exp": 1767226200}
//
// and puts the resolver after its API keys, behind one cache:
//
//	jwts, err := jwtauth.New(jwtauth.Config{Algorithm: "RS256", Key: pub,
//		Issuer: "https://portal.example.com", Audience: "clientstatus"}, st)
//	resolver := auth.NewCache(auth.Chain(keys, jwts))
package jwtauth
