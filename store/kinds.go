package store

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Kind names a kind of item, as the deletions feed (/v1/deletions) does.
type Kind string

// contractKinds are the kinds of the contract, in its order: they come
// first in Kinds, whatever the order their files declare them in.
var contractKinds = []Kind{KindProject, KindMilestone, KindDeliverable, KindInvoice, KindThread, KindMessage}

// kindInfo is what the store knows of a kind, beside its name. What the
// API declares of a kind (its scope, its statuses) is declared with its
// routes, in statusapi and auth.
type kindInfo struct {
	about bool // a thread may be about an item of it (Ref)
}

// kinds is every declared kind with what the store knows of it, in the
// order of Kinds (compareKinds): the table that Kinds and the methods of
// Kind read. Only declareKind writes it.
var kinds []kindRow

// kindRow is a line of kinds.
type kindRow struct {
	kind Kind
	info kindInfo
}

// Kinds lists every kind of item: the kinds of the contract first, in
// its order (project, milestone, deliverable, invoice, thread, message),
// then every later kind sorted by name. Each kind is declared in the file
// of its resource (see the package doc); the list is complete once package
// store is initialized, so before any other package reads it.
var Kinds []Kind

// declareKind adds k, with what the store knows of it, to Kinds at its
// place (compareKinds), and returns it. Each kind's file declares it,
// beside its constant:
//
//	// KindNote is the kind of a note.
//	const KindNote Kind = "note"
//
//	var _ = declareKind(KindNote, kindInfo{})
//
// Package-level initializers run in an order that follows the files'
// names and their dependencies, never this list: since each call inserts
// its kind at its place, Kinds comes out the same in any order, and
// complete once the package's variables are initialized (before any init
// func, and before any package that imports store). Nothing in package
// store reads Kinds while it is initialized. It panics, when package store is
// initialized, on a name that is not lowercase letters, digits and
// underscores starting with a letter (the name is sent on the wire, and
// ends an event's type: "note.created"), and on a kind declared twice:
// errors of the program that every test catches.
func declareKind(k Kind, info kindInfo) Kind {
	Kinds, kinds = withKind(Kinds, kinds, k, info)
	return k
}

// withKind returns ks and rows with k inserted at its place
// (compareKinds), or panics as declareKind does. It may reuse their
// arrays.
func withKind(ks []Kind, rows []kindRow, k Kind, info kindInfo) ([]Kind, []kindRow) {
	if !validKindName(string(k)) {
		panic(fmt.Sprintf("store: kind %q: not a kind name (a-z, 0-9, _, starting with a letter)", k))
	}
	i, found := slices.BinarySearchFunc(ks, k, compareKinds)
	if found {
		panic(fmt.Sprintf("store: kind %q declared twice", k))
	}
	return slices.Insert(ks, i, k), slices.Insert(rows, i, kindRow{k, info})
}

// validKindName reports whether s may name a kind: lowercase ASCII
// letters, digits and underscores, starting with a letter.
func validKindName(s string) bool {
	for i, r := range s {
		if !('a' <= r && r <= 'z' || i > 0 && ('0' <= r && r <= '9' || r == '_')) {
			return false
		}
	}
	return s != ""
}

// compareKinds orders kinds as Kinds lists them: the kinds of the
// contract first, in its order, then the others by name. It reads only
// contractKinds, so it holds while the kinds are being declared.
func compareKinds(a, b Kind) int {
	ia, ib := slices.Index(contractKinds, a), slices.Index(contractKinds, b)
	switch {
	case ia >= 0 && ib >= 0:
		return cmp.Compare(ia, ib)
	case ia >= 0:
		return -1
	case ib >= 0:
		return 1
	}
	return strings.Compare(string(a), string(b))
}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool { return oneOf(k, Kinds) }

// About reports whether a thread may be about an item of kind k (Ref's
// Kind): milestones, deliverables and invoices.
func (k Kind) About() bool {
	for _, d := range kinds {
		if d.kind == k {
			return d.info.about
		}
	}
	return false
}

// aboutKinds names the kinds that a thread may be about, for a message:
// "milestone, deliverable or invoice".
func aboutKinds() string {
	var out []string
	for _, d := range kinds {
		if d.info.about {
			out = append(out, string(d.kind))
		}
	}
	if len(out) < 2 {
		return strings.Join(out, "")
	}
	return strings.Join(out[:len(out)-1], ", ") + " or " + out[len(out)-1]
}
