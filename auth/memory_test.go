package auth_test

import (
	"context"
	"errors"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/auth/authtest"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
)

func TestMemoryKeyStore(t *testing.T) {
	authtest.RunKeyStore(t, func(t *testing.T) (auth.KeyStore, func(store.Organization)) {
		ks := newKeyStore()
		return ks, ks.PutOrganization
	})
}

// TestMemoryKeyStoreDeletedOrganization deletes an organization from the
// memstore.Store the key store reads: its keys stop working for good, even
// when an organization with the same id is put again.
func TestMemoryKeyStoreDeletedOrganization(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	orgs := memstore.New()
	other := store.Organization{ID: "org_b", Plan: store.PlanGrowth, RetainerActive: true, APIEnabled: true}
	is.NoErr(orgs.PutOrganization(ctx, active))
	is.NoErr(orgs.PutOrganization(ctx, other))
	keys := auth.NewKeys(auth.NewMemoryKeyStore(orgs))
	defer keys.Close()
	key, _, err := keys.Mint(ctx, "org_a", "ci", nil)
	is.NoErr(err)
	keyB, _, err := keys.Mint(ctx, "org_b", "ci", nil)
	is.NoErr(err)
	_, err = keys.Resolve(ctx, key)
	is.NoErr(err) // the key works before its organization is deleted

	is.NoErr(orgs.DeleteOrganization(ctx, "org_a"))
	_, err = keys.Resolve(ctx, key)
	is.True(errors.Is(err, auth.ErrInvalidKey)) // a deleted organization's key stops working

	is.NoErr(orgs.PutOrganization(ctx, active)) // an organization with the same id, put again
	_, err = keys.Resolve(ctx, key)
	is.True(errors.Is(err, auth.ErrInvalidKey)) // a deleted organization's key stops working for good
	list, err := keys.List(ctx, "org_a")
	is.NoErr(err)
	is.Equal(len(list), 0) // the new organization has none of the old one's keys

	p, err := keys.Resolve(ctx, keyB)
	is.NoErr(err)               // another organization's key keeps working
	is.Equal(p.Org.ID, "org_b") // another organization's key keeps working
	key2, _, err := keys.Mint(ctx, "org_a", "new", nil)
	is.NoErr(err)
	_, err = keys.Resolve(ctx, key2)
	is.NoErr(err) // the new organization's keys work
}
