package store

import "strings"

// Kind names a kind of item, as the deletions feed (/v1/deletions) does.
type Kind string

// Kinds lists every kind of item, in the contract's order. A new kind
// is added here, and to aboutKindList when a thread may be about it.
var Kinds = []Kind{KindProject, KindMilestone, KindDeliverable, KindInvoice, KindThread, KindMessage}

// aboutKindList lists the kinds a thread may be about (Ref's Kind), in
// the order of Kinds.
var aboutKindList = []Kind{KindMilestone, KindDeliverable, KindInvoice}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool { return oneOf(k, Kinds) }

// About reports whether a thread may be about an item of kind k (Ref's
// Kind): milestones, deliverables and invoices.
func (k Kind) About() bool { return oneOf(k, aboutKindList) }

// aboutKinds names the kinds that a thread may be about, for a message:
// "milestone, deliverable or invoice".
func aboutKinds() string {
	var out []string
	for _, k := range aboutKindList {
		out = append(out, string(k))
	}
	if len(out) < 2 {
		return strings.Join(out, "")
	}
	return strings.Join(out[:len(out)-1], ", ") + " or " + out[len(out)-1]
}
