package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"reflect"
	"slices"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/otelstatus"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/webhook"
)

// allowLocalWebhooks says whether webhooks may go over http to loopback
// and private addresses: as -webhooks-allow-local says when it is given,
// else while the server listens on loopback, where it is a developer's
// own (as the settings pages' demo sign-in is), so that an endpoint for a
// receiver on the same machine works out of the box.
func allowLocalWebhooks(c config, addr net.Addr) bool {
	if c.webhookAllowLocalSet {
		return c.webhookAllowLocal
	}
	return loopback(addr)
}

// webhookEndpoint is an endpoint of the data file; its secret is never logged.
type webhookEndpoint struct {
	OrgID    string
	Settings webhook.Settings
	// Sandbox: the file's "sandbox": true. The endpoint is the sandbox's
	// (auth.SandboxOrgID(OrgID)): it hears the sandbox's changes, and
	// sandbox keys list it; live keys never see it.
	Sandbox bool
}

// orgID is the organization the endpoint belongs to in the store.
func (e webhookEndpoint) orgID() string {
	if e.Sandbox {
		return auth.SandboxOrgID(e.OrgID)
	}
	return e.OrgID
}

func parseWebhook(r *reader, raw json.RawMessage, where string, e *webhookEndpoint) error {
	s := &e.Settings
	if err := r.object(raw, where, opt("id", &s.ID), opt("orgId", &e.OrgID), opt("url", &s.URL), opt("types", &s.Types),
		opt("scopes", &s.Restriction.Scopes), opt("projectIds", &s.Restriction.ProjectIDs), opt("secret", &s.Secret),
		opt("sandbox", &e.Sandbox)); err != nil {
		return err
	}
	if s.ID == "" || e.OrgID == "" || s.URL == "" {
		return errors.New("id, orgId and url are required")
	}
	if !webhook.ValidSecret(s.Secret) {
		return errors.New("secret is required: whsec_ and the base64 of 24 to 64 random bytes")
	}
	return nil
}

// webhooks is the running dispatcher and the endpoints' API.
type webhooks struct {
	d          *webhook.Dispatcher
	eps        *webhook.Endpoints
	allowLocal bool
	closePool  func() error // the dispatcher's pool's, on PostgreSQL
}

// startWebhooks registers the data file's endpoints (see put) and starts
// the dispatcher, whose secrets are sealed under a key derived from the
// signing key, its attempts counted on the metrics server, if any.
func startWebhooks(ctx context.Context, cfg config, st portalStore, ds *dataset, signingKey []byte, log *slog.Logger, metrics *metricsServer) (webhooks, error) {
	opts := cfg.webhookOptions(log)
	if metrics != nil {
		opts = append(opts, webhook.WithObserver(otelstatus.WebhookObserver(otelstatus.WithMeterProvider(metrics.provider))))
	}
	if cfg.webhookAllowLocal {
		log.Warn("webhooks may be delivered over http and to local and private addresses (-webhooks-allow-local): for development only")
	}
	key, err := webhook.DeriveKey(signingKey)
	if err != nil {
		return webhooks{}, err
	}
	w := webhooks{eps: webhook.NewEndpoints(st, st, key, opts...), allowLocal: cfg.webhookAllowLocal}
	if _, _, err := w.reload(ctx, nil, ds.webhooks); err != nil {
		return webhooks{}, err
	}
	// On PostgreSQL the dispatcher reads, claims and records on a small
	// pool of its own: requests cannot starve it, nor it them.
	var dst webhook.Store = st
	var dev store.Events = st
	if bs, ok := st.(*bunstore.Store); ok {
		pooled, closePool, err := bs.DispatcherStore(ctx, 0)
		if err != nil {
			return webhooks{}, err
		}
		dst, dev, w.closePool = pooled, pooled, closePool
		opts = append(opts, webhook.WithLeader(pooled)) // one replica queues
	}
	w.d = webhook.NewDispatcher(dst, dev, key, opts...)
	w.d.Start(ctx)
	log.Info("delivering webhooks", "allow_local", cfg.webhookAllowLocal)
	return w, nil
}

// put makes the store's endpoint what the file's entry e says: it creates
// it, or brings the one of its id to the file's url, types, scopes and
// projects, and rotates its secret to the file's (the previous one still
// signs for webhook.RotationOverlap, so receivers can follow). An endpoint
// that changes is enabled again, whatever disabled it: the agency acted on
// it. It reports whether anything changed.
func (w webhooks) put(ctx context.Context, e webhookEndpoint) (bool, error) {
	_, _, err := w.eps.Create(ctx, e.orgID(), e.Settings)
	if !errors.Is(err, store.ErrConflict) {
		return err == nil, err
	}
	cur, err := w.eps.Get(ctx, e.orgID(), e.Settings.ID)
	if err != nil {
		return false, err
	}
	s := e.Settings
	types := s.Types
	if types == nil {
		types = []string{"*"}
	}
	r := webhook.Restriction(cur)
	differs := cur.URL != s.URL || !slices.Equal(cur.Types, types) || !sameList(r.Scopes, s.Restriction.Scopes) ||
		!sameList(r.ProjectIDs, s.Restriction.ProjectIDs)
	rotated, err := w.eps.RotateSecretTo(ctx, e.orgID(), s.ID, s.Secret)
	if err != nil || !differs && !rotated {
		return rotated, err
	}
	on := true
	u := webhook.Update{Enabled: &on}
	if differs {
		u.URL, u.Types, u.Restriction = &s.URL, types, &s.Restriction
	}
	_, err = w.eps.Update(ctx, e.orgID(), s.ID, u)
	return true, err
}

// sameList reports whether a and b are the same list, nil (no
// restriction) differing from an empty one (nothing allowed).
func sameList[T comparable](a, b []T) bool {
	return (a == nil) == (b == nil) && slices.Equal(a, b)
}

// reload applies to the store the change of the file's endpoints from
// old to now (after the rest of the file: the organizations they name are
// there, and the endpoints of those removed went with them): new and
// changed ones are put, removed ones deleted. Unchanged ones are left as
// they are, disabled or not.
func (w webhooks) reload(ctx context.Context, old, now []webhookEndpoint) (put, removed int, err error) {
	type key struct{ org, id string }
	was := map[key]webhookEndpoint{}
	for _, e := range old {
		was[key{e.orgID(), e.Settings.ID}] = e
	}
	for _, e := range now {
		k := key{e.orgID(), e.Settings.ID}
		prev, ok := was[k]
		delete(was, k)
		if ok && reflect.DeepEqual(prev, e) {
			continue
		}
		changed, err := w.put(ctx, e)
		if err != nil {
			return put, removed, fmt.Errorf("webhookEndpoints %s: %w", e.Settings.ID, err)
		}
		if changed {
			put++
		}
	}
	for k := range was {
		err := w.eps.Delete(ctx, k.org, k.id)
		switch {
		case err == nil:
			removed++
		case !errors.Is(err, store.ErrNotFound): // gone with its organization
			return put, removed, fmt.Errorf("webhookEndpoints %s: %w", k.id, err)
		}
	}
	return put, removed, nil
}

// stop stops the dispatcher, waiting for attempts in flight until ctx ends.
func (w webhooks) stop(ctx context.Context) error {
	err := w.d.Stop(ctx)
	if w.closePool != nil {
		w.closePool()
	}
	return err
}
