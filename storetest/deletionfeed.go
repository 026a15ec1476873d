package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/store"
	"github.com/matryer/is"
)

// deletions reads a page of deletion records as "kind id" strings.
func deletions(c store.Changes, org string, q store.DeletionQuery) func(context.Context, store.Store, store.PageRequest) ([]string, int, error) {
	return func(ctx context.Context, _ store.Store, r store.PageRequest) ([]string, int, error) {
		q := q // a copy: the list may be fetched by several tests at once
		q.PageRequest = r
		p, err := c.ListDeletions(ctx, org, q)
		return ids(p.Items, func(d store.Deletion) string { return string(d.Kind) + " " + d.ID }), p.Total, err
	}
}

// inFeedOrder reports deletion records out of the feed's order: DeletedAt,
// then kind, then id.
func inFeedOrder(feed []store.Deletion) error {
	for k := 1; k < len(feed); k++ {
		a, b := feed[k-1], feed[k]
		if c := a.DeletedAt.Compare(b.DeletedAt); c > 0 || c == 0 && (a.Kind > b.Kind || a.Kind == b.Kind && a.ID >= b.ID) {
			return fmt.Errorf("%s %s (deleted %s) listed before %s %s (deleted %s)", a.Kind, a.ID, a.DeletedAt, b.Kind, b.ID, b.DeletedAt)
		}
	}
	return nil
}

func testDeletionsSinceTooOld(t *testing.T, open func(t *testing.T) Subject) {
	s := open(t)
	c := s
	seedData().put(t, s)
	is := is.New(t)

	for _, since := range []time.Time{
		{},
		s.Now().Add(-store.DeletionRetention - 24*time.Hour),
		day(-3650, 0),
	} {
		for _, org := range []string{orgA, orgB} {
			_, err := c.ListDeletions(ctx, org, store.DeletionQuery{PageRequest: all, Since: since})
			is.True(errors.Is(err, store.ErrSinceTooOld)) // a since older than what the store knows wraps store.ErrSinceTooOld
		}
	}

	// A since from the store's own recent times is fine.
	s.Advance(tick)
	p3 := want(seedData().projects, orgA, "p3", projectKey)
	p3.Name += " (changed)"
	is.NoErr(s.PutProject(ctx, p3))
	page, err := c.ListDeletions(ctx, orgA, store.DeletionQuery{PageRequest: all, Since: getProject(t, s, orgA, "p3").UpdatedAt})
	is.NoErr(err)              // a recent since is known
	is.Equal(page.Total, 0)    // nothing was deleted
	is.True(page.Items != nil) // an empty page is [] in JSON, not null
}
