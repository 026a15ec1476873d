package store

// Organization is an agency client: the owner of projects, deliverables,
// invoices and API keys. Plan is "starter", "growth" or "enterprise".
// Only an organization with an active retainer and API access enabled may
// use the API.
type Organization struct {
	ID             string
	Name           string
	Plan           string
	RetainerActive bool
	APIEnabled     bool
}

// Validate reports the first problem that makes o unfit to be stored: an
// empty id, one that is not Storable, or a plan other than "starter",
// "growth" or "enterprise".
func (o Organization) Validate() error {
	if o.ID == "" {
		return invalid("organization", o.ID, "empty id")
	}
	if err := checkStorable("organization", o.ID, "id", o.ID); err != nil {
		return err
	}
	switch o.Plan {
	case "starter", "growth", "enterprise":
		return nil
	}
	return invalid("organization", o.ID, "plan %q is not starter, growth or enterprise", o.Plan)
}
