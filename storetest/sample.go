package storetest

import (
	"context"
	"fmt"
	"slices"

	"github.com/clientstatus/clientstatus/store"
)

// SampleID is the id of the item of kind that Sample puts: "<kind>_sample"
// ("note_sample").
func SampleID(kind store.Kind) string { return string(kind) + "_sample" }

// Sample puts one item of kind, with id SampleID(kind), in project of
// org, through the kind's descriptor (the one its conformance cases put):
// test data of a kind for a test that is about every kind rather than
// this one, such as statusapi's tests of the conventions every route
// shares, so that a new kind's routes are walked on an item of it without
// a fixture of their own. The organization and the project must exist.
func Sample(ctx context.Context, s Subject, kind store.Kind, org, project string) error {
	i := slices.IndexFunc(kindCases, func(k kindCase) bool { return k.kind == kind })
	if i < 0 {
		return fmt.Errorf("storetest: no descriptor of kind %q", kind)
	}
	k := kindCases[i]
	return k.put(ctx, s, org, SampleID(kind), project, 0)
}
