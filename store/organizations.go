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
