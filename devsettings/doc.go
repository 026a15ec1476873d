// Package devsettings serves the developer settings that a client portal
// mounts behind its own sign-in: HTML pages where a client's people
// manage their organization's API keys and webhook endpoints and see
// their requests and usage (the contract's "Developer settings").
//
// New returns an http.Handler that works under any prefix. The portal
// tells it who is signed in through one function; the handler has no
// accounts, sessions or passwords of its own. An admin may change
// things, a member only reads; no account is 401, another organization's
// id 404, a change from another origin or by a member 403.
//
//	h := devsettings.New(keys, st, func(r *http.Request) (devsettings.Account, bool) {
//		u, ok := portal.User(r)
//		return devsettings.Account{OrgID: u.OrgID, Name: u.Name, Admin: u.IsAdmin}, ok
//	}, devsettings.WithWebhooks(endpoints), devsettings.WithRequestLog(st))
//	mux.Handle("/settings/", http.StripPrefix("/settings", h))
//
// Pages are server-rendered with html/template; the CSS and a small
// script (a copy button) are embedded, behind a Content-Security-Policy
// nonce. Every action is a plain HTML form. A new key's secret and a
// revealed webhook secret appear in one answer only, never in a URL, a
// redirect or a log. docs/settings.md says how to mount and embed it.
package devsettings
