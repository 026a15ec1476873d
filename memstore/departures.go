package memstore

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// departure records that an item left a project while it still exists:
// a key restricted to that project sees it as a deletion, unless the item
// is now in another of its projects. Deletion.ProjectID is the project it
// left; to is where it is now ("" for none). It is kept like a deletion
// record and dropped when the item comes back; a deleted item keeps its
// departures, with to the project its deletion record names.
type departure struct {
	store.Deletion
	to string
}

// depart notes that the item of that kind and id, stored before in
// project from (when old is true; when it is false, the item is new or
// put again after a deletion), is now in project to, by a write dated at.
// The caller holds mu for writing.
func (t *tenant) depart(kind store.Kind, id string, old bool, from, to string, at time.Time) {
	k := deletionKey{kind, id}
	if !old {
		// Put again after a deletion, whose record the put drops: a key
		// of the project the record names, which saw the item there and
		// may not have read the record yet, must see it leave that
		// project as it would had the item moved.
		if was := t.deletedFrom(k); was != "" {
			old, from = true, was
		}
	}
	if old && from == to {
		return
	}
	if t.departed == nil {
		t.departed = make(map[deletionKey]map[string]*departure)
	}
	left := t.departed[k]
	if d := left[to]; d != nil { // back in a project it left
		t.dropDeparture(d)
	}
	for _, d := range left {
		d.to = to
	}
	if !old || from == "" {
		return
	}
	if d := left[from]; d != nil {
		t.dropDeparture(d)
	}
	d := &departure{Deletion: store.Deletion{Kind: kind, ID: id, ProjectID: from, DeletedAt: at}, to: to}
	i, _ := slices.BinarySearchFunc(t.departures, d, departureOrder)
	t.departures = slices.Insert(t.departures, i, d)
	if t.departed[k] == nil {
		t.departed[k] = make(map[string]*departure)
	}
	t.departed[k][from] = d
}

func (t *tenant) dropDeparture(d *departure) {
	if i, found := slices.BinarySearchFunc(t.departures, d, departureOrder); found {
		t.departures = slices.Delete(t.departures, i, i+1)
	}
	k := deletionKey{d.Kind, d.ID}
	delete(t.departed[k], d.ProjectID)
	if len(t.departed[k]) == 0 {
		delete(t.departed, k)
	}
}

// pruneDepartures drops the departures dated before cutoff.
func (t *tenant) pruneDepartures(cutoff time.Time) {
	for len(t.departures) > 0 && t.departures[0].DeletedAt.Before(cutoff) {
		t.dropDeparture(t.departures[0])
	}
}

// departuresSince returns, as deletion records, the departures at or
// after since that a key restricted to only (not nil) sees: the item left
// one of its projects and is not in one of them now; one per item, the
// latest, in feed order.
func (t *tenant) departuresSince(only []string, since time.Time) []*store.Deletion {
	var out []*store.Deletion
	seen := make(map[deletionKey]bool)
	for _, d := range slices.Backward(t.departures) {
		if d.DeletedAt.Before(since) {
			break
		}
		k := deletionKey{d.Kind, d.ID}
		if seen[k] || !store.InProjects(only, d.ProjectID) || store.InProjects(only, d.to) {
			continue
		}
		seen[k] = true
		out = append(out, &d.Deletion)
	}
	slices.Reverse(out)
	return out
}

func departureOrder(a, b *departure) int {
	return cmp.Or(deletionOrder(&a.Deletion, &b.Deletion), strings.Compare(a.ProjectID, b.ProjectID))
}

// mergeDeletions returns the records of a and b, each in feed order, in
// feed order.
func mergeDeletions(a, b []*store.Deletion) []*store.Deletion {
	out := make([]*store.Deletion, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if deletionOrder(a[0], b[0]) <= 0 {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// deletedFrom is the project that the deletion record of the item k names,
// "" when it has none or names none.
func (t *tenant) deletedFrom(k deletionKey) string {
	at, ok := t.deleted[k]
	if !ok {
		return ""
	}
	i, found := slices.BinarySearchFunc(t.deletions, &store.Deletion{Kind: k.kind, ID: k.id, DeletedAt: at}, deletionOrder)
	if !found {
		return ""
	}
	return t.deletions[i].ProjectID
}
