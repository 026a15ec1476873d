package store

import (
	"context"
	"fmt"
	"slices"
)

// Single items of Memory beside GetProject and GetDeliverable (memory.go)
// and GetThread (memory_threads.go): what the single-item routes and
// expand=project read.

// GetProjects returns those of the organization's projects whose ids are
// in ids, in the order of ids, each once; ids it has no project of are
// skipped.
func (m *Memory) GetProjects(ctx context.Context, orgID string, ids []string) ([]Project, error) {
	if err := alive(ctx); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]Project, 0, len(ids))
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
}

// GetMilestone returns one of the organization's milestones, or
// ErrNotFound.
func (m *Memory) GetMilestone(ctx context.Context, orgID, id string) (Milestone, error) {
	return milestoneItems.get(ctx, m, orgID, id)
}

// GetInvoice returns one of the organization's invoices, with its
// DocumentKey, or ErrNotFound.
func (m *Memory) GetInvoice(ctx context.Context, orgID, id string) (Invoice, error) {
	return invoiceItems.get(ctx, m, orgID, id)
}

// GetMessage returns one of the organization's visible messages of its
// visible threads, or ErrNotFound; with onlyProjects not nil, also for a
// message of a thread outside them.
func (m *Memory) GetMessage(ctx context.Context, orgID, id string, onlyProjects []string) (Message, error) {
	if err := alive(ctx); err != nil {
		return Message{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if t := m.orgs[orgID]; t != nil {
		if msg, ok := t.threads.shownMsgs.byID[id]; ok && InProjects(onlyProjects, t.threads.projectOf(msg.ThreadID)) {
			return copyMessage(*msg), nil
		}
	}
	return Message{}, fmt.Errorf("store: message %q: %w", id, ErrNotFound)
}
