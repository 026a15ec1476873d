package main

import (
	"context"
	"fmt"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/store"
)

// backend is where a dataset is loaded and served from.
type backend struct {
	store store.Store
	w     store.Writer
	keys  auth.KeyStore // reads the organizations that w puts
	files *files.Memory
}

// load puts every item of ds into b, organizations first, keys after the
// projects they may be restricted to. Loading the same dataset again
// changes nothing: items are replaced by id and a key already stored is
// kept (a key stored with another restriction is refused: see
// auth.Keys.ImportRestricted).
func (b backend) load(ctx context.Context, ds *dataset, keys *auth.Keys) error {
	for i, o := range ds.orgs {
		if err := b.w.PutOrganization(ctx, o); err != nil {
			return fmt.Errorf("%s: %w", itemName("organizations", i, o.ID), err)
		}
	}
	for i, p := range ds.projects {
		if err := b.w.PutProject(ctx, p); err != nil {
			return fmt.Errorf("%s: %w", itemName("projects", i, p.ID), err)
		}
	}
	// After the projects: a restricted key's are checked against them.
	for i, k := range ds.keys {
		if err := b.importKey(ctx, keys, k); err != nil {
			// The error never holds the key; the item is named by index.
			return fmt.Errorf("%s: %w", itemName("apiKeys", i, ""), err)
		}
	}
	for i, m := range ds.milestones {
		if err := b.w.PutMilestone(ctx, m); err != nil {
			return fmt.Errorf("%s: %w", itemName("milestones", i, m.ID), err)
		}
	}
	for i, d := range ds.deliverables {
		if err := b.w.PutDeliverable(ctx, d); err != nil {
			return fmt.Errorf("%s: %w", itemName("deliverables", i, d.ID), err)
		}
	}
	for i, inv := range ds.invoices {
		if err := b.w.PutInvoice(ctx, inv); err != nil {
			return fmt.Errorf("%s: %w", itemName("invoices", i, inv.ID), err)
		}
	}
	for key, content := range ds.content {
		b.files.Put(key, content)
	}
	return nil
}

// importKey stores a plaintext key of the dataset, hashed, and revokes it
// when the dataset says it was. Both are idempotent: a key already stored
// is kept, and revoking keeps the first time.
func (b backend) importKey(ctx context.Context, keys *auth.Keys, k apiKey) error {
	rec, err := keys.ImportRestricted(ctx, k.OrgID, k.Name, k.Key, k.ExpiresAt, k.Restriction)
	if err != nil || k.RevokedAt == nil {
		return err
	}
	return b.keys.RevokeKey(ctx, k.OrgID, rec.ID, *k.RevokedAt)
}
