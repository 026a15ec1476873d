package store

import "slices"

// InProjects reports whether an item of project id passes a query's
// OnlyProjects: always when only is nil, never when id is "" (an item of
// no project: a retainer invoice, an organization-wide thread) and only
// is not nil.
func InProjects(only []string, id string) bool {
	return only == nil || id != "" && slices.Contains(only, id)
}
