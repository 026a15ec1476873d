package auth

import (
	"fmt"
	"slices"

	"github.com/clientstatus/clientstatus/store"
)

// Scope names a part of the API that a restricted key may read.
type Scope string

// The scopes of the contract ("Restricted keys"). Routes that need none
// (GET /v1/rate_limit) answer any valid key.
const (
	ScopeProjects     Scope = "projects:read"     // projects and their milestones
	ScopeDeliverables Scope = "deliverables:read" // deliverables and their download links
	ScopeInvoices     Scope = "invoices:read"     // invoices
	ScopeThreads      Scope = "threads:read"      // threads, messages and their attachments
	ScopeWebhooks     Scope = "webhooks:read"     // the organization's webhook endpoints and their deliveries
	ScopeLogs         Scope = "logs:read"         // the request log
)

// AllScopes lists every scope, in the contract's order.
var AllScopes = []Scope{ScopeProjects, ScopeDeliverables, ScopeInvoices, ScopeThreads, ScopeWebhooks, ScopeLogs}

// Valid reports whether s is one of AllScopes.
func (s Scope) Valid() bool { return slices.Contains(AllScopes, s) }

// Restriction limits what a credential may read of its organization's
// data. Its zero value restricts nothing: every key minted before
// restrictions existed, and every key minted without one, reads all of
// its organization's data.
//
// A restriction only ever narrows: a project id that names no project
// (one deleted since the key was minted) matches nothing, so the key sees
// less, never more.
type Restriction struct {
	// Scopes are the parts of the API the credential may read; nil: all
	// of them. A route outside them answers 403 INSUFFICIENT_SCOPE.
	Scopes []Scope
	// ProjectIDs are the projects whose items the credential may see:
	// the projects themselves, their milestones, deliverables, threads
	// and messages, and the invoices that name one of them; nil: every
	// project. A credential restricted to projects sees nothing that
	// belongs to none (no retainer invoice, no organization-wide thread),
	// and anything else answers 404 like another organization's id.
	ProjectIDs []string
}

// Restricted reports whether r restricts anything.
func (r Restriction) Restricted() bool { return r.Scopes != nil || r.ProjectIDs != nil }

// Allows reports whether r allows the scope s.
func (r Restriction) Allows(s Scope) bool { return r.Scopes == nil || slices.Contains(r.Scopes, s) }

// AllowsProject reports whether r lets its credential see the items of
// project id.
func (r Restriction) AllowsProject(id string) bool {
	return r.ProjectIDs == nil || slices.Contains(r.ProjectIDs, id)
}

// Validate reports the first problem that makes r unfit for a key: a
// scope that is not one of AllScopes, an empty (non-nil) list of scopes or
// of projects (a key that could read nothing: give nil for no
// restriction), or a project id that is empty or not store.Storable. The
// error wraps ErrInvalidInput. Whether the projects exist is for Keys to
// check (see Keys.MintRestricted).
func (r Restriction) Validate() error {
	if r.Scopes != nil && len(r.Scopes) == 0 {
		return fmt.Errorf("auth: %w restriction: an empty list of scopes would allow nothing (nil allows all)", ErrInvalidInput)
	}
	for _, s := range r.Scopes {
		if !s.Valid() {
			return fmt.Errorf("auth: %w scope %q: want one of %v", ErrInvalidInput, s, AllScopes)
		}
	}
	if r.ProjectIDs != nil && len(r.ProjectIDs) == 0 {
		return fmt.Errorf("auth: %w restriction: an empty list of projects would show nothing (nil shows all)", ErrInvalidInput)
	}
	for _, id := range r.ProjectIDs {
		if id == "" || !store.Storable(id) {
			return fmt.Errorf("auth: %w project id %q: empty, or not valid UTF-8 without NUL", ErrInvalidInput, id)
		}
	}
	return nil
}

// normalized returns r in one spelling: scopes in the order of AllScopes,
// project ids sorted, each once; nil stays nil. Two restrictions that allow
// the same are then equal (see equal).
func (r Restriction) normalized() Restriction {
	var out Restriction
	if r.Scopes != nil {
		out.Scopes = []Scope{}
		for _, s := range AllScopes {
			if slices.Contains(r.Scopes, s) {
				out.Scopes = append(out.Scopes, s)
			}
		}
	}
	if r.ProjectIDs != nil {
		out.ProjectIDs = slices.Compact(slices.Sorted(slices.Values(r.ProjectIDs)))
	}
	return out
}

// equal reports whether r and o, both normalized, are the same
// restriction: nil and empty lists differ.
func (r Restriction) equal(o Restriction) bool {
	return (r.Scopes == nil) == (o.Scopes == nil) && slices.Equal(r.Scopes, o.Scopes) &&
		(r.ProjectIDs == nil) == (o.ProjectIDs == nil) && slices.Equal(r.ProjectIDs, o.ProjectIDs)
}

// clone returns r with lists of its own.
func (r Restriction) clone() Restriction {
	return Restriction{Scopes: slices.Clone(r.Scopes), ProjectIDs: slices.Clone(r.ProjectIDs)}
}
