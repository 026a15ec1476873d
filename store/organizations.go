package store

import "context"

// Plan is an organization's plan; it sets its rate limit.
type Plan string

// The plans.
const (
	PlanStarter    Plan = "starter"
	PlanGrowth     Plan = "growth"
	PlanEnterprise Plan = "enterprise"
)

// Plans lists every plan, in the order of their budgets.
var Plans = []Plan{PlanStarter, PlanGrowth, PlanEnterprise}

// Valid reports whether p is one of the known plans.
func (p Plan) Valid() bool {
	return p == PlanStarter || p == PlanGrowth || p == PlanEnterprise
}

// Organization is an agency client: the owner of projects, deliverables,
// invoices and API keys, and the tenant every read is scoped to. It is the
// one model of an organization: the key stores (package auth, bunstore),
// the rate limiter and the handler all use it.
type Organization struct {
	ID             string
	Name           string
	Plan           Plan
	RetainerActive bool
	APIEnabled     bool
}

// CanUseAPI reports whether the organization may use the API: only one
// with an active retainer and API access enabled may. A valid key of any
// other organization is answered 403 FORBIDDEN.
func (o Organization) CanUseAPI() bool { return o.RetainerActive && o.APIEnabled }

// Validate reports the first problem that makes o unfit to be stored: an
// empty id, one that is not Storable, or a plan other than starter,
// growth or enterprise.
func (o Organization) Validate() error {
	if o.ID == "" {
		return Invalid("organization", o.ID, "empty id")
	}
	if err := checkStorable("organization", o.ID, "id", o.ID); err != nil {
		return err
	}
	if !o.Plan.Valid() {
		return Invalid("organization", o.ID, "plan %q is not starter, growth or enterprise", o.Plan)
	}
	return nil
}

// Organizations finds an organization by id. memstore.Store and
// bunstore implement it, and the key stores read organizations through it,
// so an organization is put once.
//
// Organization returns an error wrapping ErrNotFound when there is no such
// organization, and one wrapping ErrUnavailable (or ctx's error) when it
// cannot tell. Implementations are safe for concurrent use.
type Organizations interface {
	Organization(ctx context.Context, id string) (Organization, error)
}
