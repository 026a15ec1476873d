package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/sandbox"
	"github.com/clientstatus/clientstatus/webhook"
)

// reloadTimeout bounds one reload: reading the file, checking it and
// writing the change.
const reloadTimeout = 2 * time.Minute

// reloader re-reads the data file on request (SIGHUP) and applies to the
// store what changed since the dataset it last applied (diff): new and
// changed items are put (the store gives them a new updatedAt; unchanged
// ones keep theirs), and items, keys and organizations no longer in it
// removed, with deletion records. A file that does not load changes
// nothing (see apply). Then the file's webhook endpoints are brought in
// line the same way (webhooks.reload). Items that no file of this run
// loaded (on PostgreSQL, another writer's) are left alone.
type reloader struct {
	file    string // "" with the built-in demo data: nothing to reload
	log     *slog.Logger
	b       backend
	live    *live
	applied *dataset           // the dataset the store holds; only the reload loop uses it
	sim     *sandbox.Simulator // drives the sandboxes a reload seeds; nil: they do not move
	hooks   webhooks
}

// loop handles the reload requests of reqs, one at a time, until ctx is
// done, calling done (when not nil) with the outcome of each. Each reload
// reads the file as it is when it starts, so the last request is always
// followed by a read of the file written before it.
func (r *reloader) loop(ctx context.Context, reqs <-chan os.Signal, done func(error)) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-reqs:
		}
		err := r.reload(ctx)
		if done != nil {
			done(err)
		}
	}
}

// reload reads the data file and applies it. It logs what it did, or why
// it changed nothing, and returns that error.
func (r *reloader) reload(ctx context.Context) error {
	if r.file == "" {
		r.log.Warn("reload: the server serves the built-in demo data, not a data file (-data): nothing to reload")
		return nil
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, reloadTimeout)
	defer cancel()
	oldHooks := r.applied.webhooks
	c, err := r.apply(ctx)
	if err != nil {
		r.log.Error("reload: the data file does not load; the data served is unchanged", "file", r.file, "err", err)
		return err
	}
	if err := seedSandboxes(ctx, r.b.store, r.applied, r.sim); err != nil {
		r.log.Error("reload: seeding the sandboxes failed", "err", err)
		return err
	}
	hooksPut, hooksRemoved, err := r.hooks.reload(ctx, oldHooks, r.applied.webhooks)
	if err != nil {
		r.log.Error("reload: the data is the new file's, but its webhook endpoints failed part-way", "err", err)
		return err
	}
	put, removed := c.count()
	r.log.Info("reloaded the data file", "file", r.file, "put", put, "removed", removed,
		"webhook_endpoints_put", hooksPut, "webhook_endpoints_removed", hooksRemoved,
		"duration", time.Since(start).Round(time.Millisecond).String())
	return nil
}

// apply is reload's work. Every check comes before the first write: the
// file is parsed and checked as at start-up, loaded with its webhook
// endpoints into an empty store (dryRun), and its keys and attachments
// checked against what is stored (checkKeys, checkAttachments). The
// change is then written: on PostgreSQL in one transaction, committed
// under the API's guard; in memory under the guard (see live), which the
// checks make sure cannot fail. The new files and an empty resolver cache
// are swapped in under the same guard.
func (r *reloader) apply(ctx context.Context) (change, error) {
	ds, err := readDataFile(r.file)
	if err != nil {
		return change{}, err
	}
	c := diff(r.applied, ds)
	err = dryRun(ctx, ds, r.hooks.allowLocal)
	if err == nil {
		warnAbout(r.log, ds)
		err = checkKeys(ctx, r.log, r.b.keys, c)
	}
	if err == nil {
		err = checkAttachments(r.applied, ds)
	}
	if err != nil {
		return change{}, fmt.Errorf("data file %s: %w", r.file, err)
	}
	fm := filesOf(ds.content)
	if r.b.begin != nil {
		t, commit, rollback, err := r.b.begin(ctx)
		if err != nil {
			return change{}, fmt.Errorf("starting a transaction: %w", err)
		}
		if err := c.apply(ctx, t); err != nil {
			rollback()
			return change{}, fmt.Errorf("data file %s: %w", r.file, err)
		}
		r.live.mu.Lock()
		defer r.live.mu.Unlock()
		if err := commit(); err != nil {
			return change{}, fmt.Errorf("committing: %w", err)
		}
	} else {
		r.live.mu.Lock()
		defer r.live.mu.Unlock()
		// Once writing has begun it goes to the end: a shutdown meanwhile
		// waits for it.
		if err := c.apply(context.WithoutCancel(ctx), r.b.target(r.live.keys)); err != nil {
			r.log.Error("reload: writing the change failed part-way: the data served is partly the new file's; restart the server to serve a file exactly",
				"file", r.file, "err", err)
			return change{}, err
		}
	}
	r.live.swap(fm)
	r.applied = ds
	return c, nil
}

// dryRun loads ds into an empty in-memory store and key store and
// registers its webhook endpoints there, so that what any store would
// refuse (an invalid item, a key of a form no key takes, an endpoint URL
// that is not https, an endpoint id given twice) is found before the live
// store is touched. Its errors name the item as start-up's do.
func dryRun(ctx context.Context, ds *dataset, allowLocal bool) error {
	st := memstore.New()
	ks := auth.NewMemoryKeyStore(st)
	if err := load(ctx, target{writer: st, ks: ks, keys: auth.NewKeys(ks)}, ds); err != nil {
		return err
	}
	for _, o := range ds.orgs {
		o.ID = auth.SandboxOrgID(o.ID)
		if err := st.PutOrganization(ctx, o); err != nil {
			return err
		}
	}
	eps := webhook.NewEndpoints(st, st, make([]byte, webhook.KeySize), webhook.WithAllowLocal(allowLocal))
	for i, e := range ds.webhooks {
		if _, _, err := eps.Create(ctx, e.orgID(), e.Settings); err != nil {
			return fmt.Errorf("%s: %w", itemName("webhookEndpoints", i, e.Settings.ID), err)
		}
	}
	return nil
}

// checkKeys checks the keys c puts against the key store ks, before
// anything is written:
//
//   - a key that another organization holds (one that stays) is an error:
//     a key cannot move to another organization, and the key store would
//     refuse it halfway through the change;
//   - a key the store holds revoked (removed from an earlier file, or
//     revoked in it) that the file lists without revokedAt stays revoked,
//     and a key already stored keeps the name and expiry it was first
//     stored with: both are logged as warnings, naming the item by index.
func checkKeys(ctx context.Context, log *slog.Logger, ks auth.KeyStore, c change) error {
	i := sectionIndex("apiKeys")
	s := sections[i]
	for _, e := range c.put[i] {
		k := e.item.(apiKey)
		rec, _, err := ks.LookupKey(ctx, auth.HashKey(k.Key))
		switch {
		case errors.Is(err, auth.ErrInvalidKey):
			continue // a new key
		case err != nil:
			return fmt.Errorf("%s: %w", s.itemName(e), err)
		case rec.OrgID != k.OrgID && !c.goneOrgs[rec.OrgID]:
			return fmt.Errorf("%s: organization %q holds this key: a key cannot move to another organization; give %q a new one", s.itemName(e), rec.OrgID, k.OrgID)
		case rec.OrgID != k.OrgID:
			continue // its organization goes first, and the key with it
		}
		if rec.RevokedAt != nil && k.RevokedAt == nil {
			log.Warn("reload: a key the file lists was revoked (revokedAt, or removed from an earlier file) and stays revoked: give the organization a new key", "item", s.itemName(e))
		}
		if rec.Name != strings.TrimSpace(k.Name) || !sameTime(rec.ExpiresAt, k.ExpiresAt) {
			log.Warn("reload: a stored key keeps the name and expiresAt it was first loaded with; to change them, give the organization a new key", "item", s.itemName(e))
		}
	}
	return nil
}

// sameTime reports whether a and b are both nil or the same instant.
func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// warnAbout logs what of ds will not be served as the file may mean it.
func warnAbout(log *slog.Logger, ds *dataset) {
	if len(ds.ignored) > 0 {
		log.Warn("data file: fields the format does not have were ignored", "fields", ds.ignored)
	}
	if ids := ds.fileless(); len(ids) > 0 {
		log.Warn("data file: deliverables with a fileName but no content have no file to serve; their downloads answer 409", "ids", ids)
	}
}

// checkAttachments refuses a file in which an attachment id that stays
// moves to another message of its organization. A change puts before it
// removes, and a store refuses a message whose attachment id another
// message still holds, so the move would fail halfway through the write;
// found here, it changes nothing.
func checkAttachments(old, ds *dataset) error {
	was := map[ref]string{} // attachment -> its message in old
	for _, m := range old.messages {
		for _, a := range m.Attachments {
			was[ref{m.OrgID, a.ID}] = m.ID
		}
	}
	for i, m := range ds.messages {
		for j, a := range m.Attachments {
			if prev, ok := was[ref{m.OrgID, a.ID}]; ok && prev != m.ID {
				return fmt.Errorf("%s: attachments[%d]: id %q was message %q's: an attachment cannot move to another message on a reload; give it a new id",
					itemName("messages", i, m.ID), j, a.ID, prev)
			}
		}
	}
	return nil
}
