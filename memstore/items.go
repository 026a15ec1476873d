package memstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/clientstatus/clientstatus/store"
)

// Single items of the Store beside GetProject and GetDeliverable (memstore.go)
// and GetThread (threads.go): what the single-item routes and
// expand=project read.

// GetProjects returns those of the organization's projects whose ids are
// in ids, in the order of ids, each once; ids it has no project of are
// skipped.
func (m *Store) GetProjects(ctx context.Context, orgID string, ids []string) ([]store.Project, error) {
	return reading(ctx, m, func() ([]store.Project, error) {
		out := make([]store.Project, 0, len(ids))
		t := m.orgs[orgID]
		if t == nil {
			return out, nil
		}
		for i, id := range ids {
			if p, ok := projectItems.of(t).byID[id]; ok && !slices.Contains(ids[:i], id) {
				out = append(out, copyProject(*p))
			}
		}
		return out, nil
	})
}

// GetMilestone returns one of the organization's milestones, or
// ErrNotFound.
func (m *Store) GetMilestone(ctx context.Context, orgID, id string) (store.Milestone, error) {
	return milestoneItems.get(ctx, m, orgID, id)
}

// GetInvoice returns one of the organization's invoices, with its
// DocumentKey, or ErrNotFound.
func (m *Store) GetInvoice(ctx context.Context, orgID, id string) (store.Invoice, error) {
	return invoiceItems.get(ctx, m, orgID, id)
}

// GetMessage returns one of the organization's visible messages of its
// visible threads, or ErrNotFound; with onlyProjects not nil, also for a
// message of a thread outside them.
func (m *Store) GetMessage(ctx context.Context, orgID, id string, onlyProjects []string) (store.Message, error) {
	return reading(ctx, m, func() (store.Message, error) {
		if t := m.orgs[orgID]; t != nil {
			if msg, ok := t.threads.shownMsgs.byID[id]; ok && store.InProjects(onlyProjects, t.threads.projectOf(msg.ThreadID)) {
				return copyMessage(*msg), nil
			}
		}
		return store.Message{}, fmt.Errorf("store: message %q: %w", id, store.ErrNotFound)
	})
}
