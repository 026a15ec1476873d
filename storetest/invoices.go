package storetest

import (
	"context"
	"fmt"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// invoiceKind describes invoices to the cases of every kind (kinds.go): a
// retainer invoice belongs to no project, and a deleted project's
// invoices stay, without one.
var invoiceKind = kindCase{
	kind:     store.KindInvoice,
	optional: true,
	detached: true,
	put: func(ctx context.Context, s subject, org, id, project string, n int) error {
		return s.PutInvoice(ctx, store.Invoice{ID: id, OrgID: org, Number: fmt.Sprint("N-", id, "-", n), ProjectID: optionalPtr(project),
			Status: store.InvoiceOpen, Currency: "EUR", Total: 100, AmountDue: 100, IssuedAt: day(1, 9), DueAt: day(30, 9)})
	},
	get: func(ctx context.Context, s subject, org, id string) (kindItem, error) {
		i, err := s.GetInvoice(ctx, org, id)
		return kindItem{deref(i.ProjectID), i.UpdatedAt, describe(i)}, err
	},
	list: func(org, project string, only []string, since time.Time) fetchFunc {
		return invoices(org, store.InvoiceQuery{ListFilter: store.ListFilter{ProjectID: project, OnlyProjects: only, UpdatedSince: since}})
	},
	del: func(ctx context.Context, s subject, org, id string) error {
		return s.DeleteInvoice(ctx, org, id)
	},
}

// deref is *p, "" for nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// The methods of Unimplemented for this resource (unimplemented.go).

// ListInvoices fails with errors.ErrUnsupported.
func (u Unimplemented) ListInvoices(ctx context.Context, _ string, _ store.InvoiceQuery) (store.Page[store.Invoice], error) {
	return store.Page[store.Invoice]{}, u.fail(ctx, "ListInvoices")
}

// GetInvoice fails with errors.ErrUnsupported.
func (u Unimplemented) GetInvoice(ctx context.Context, _ string, _ string) (store.Invoice, error) {
	return store.Invoice{}, u.fail(ctx, "GetInvoice")
}
