package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/otelstatus"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/webhook"
)

// webhookFlags defines the webhook flags: -webhook-retries, the delays
// between attempts (for tests: "1s,2s,4s"), and -webhooks-allow-local,
// for development only.
func webhookFlags(fs *flag.FlagSet, c *config) {
	fs.Func("webhook-retries", "comma-separated `delays` between webhook attempts (default 5s,5m,30m,2h,5h,10h,10h)", func(v string) error {
		var out []time.Duration
		for _, part := range strings.Split(v, ",") {
			d, err := time.ParseDuration(strings.TrimSpace(part))
			if err != nil || d <= 0 {
				return fmt.Errorf("%q is not a positive duration such as 5s", part)
			}
			out = append(out, d)
		}
		c.webhookRetries = out
		return nil
	})
	fs.BoolVar(&c.webhookAllowLocal, "webhooks-allow-local", false, "for development only: deliver webhooks over http and to loopback and private addresses")
}

// webhookEndpoint is an endpoint of the data file; its secret is never
// logged.
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

type webhookJSON struct {
	ID         string   `json:"id"`
	OrgID      string   `json:"orgId"`
	URL        string   `json:"url"`
	Types      []string `json:"types"`
	Scopes     []string `json:"scopes"`
	ProjectIDs []string `json:"projectIds"`
	Secret     string   `json:"secret"`
	Sandbox    bool     `json:"sandbox"`
}

func parseWebhook(raw json.RawMessage) (webhookEndpoint, error) {
	var v webhookJSON
	if err := decodeStrict(bytes.NewReader(raw), &v); err != nil {
		return webhookEndpoint{}, err
	}
	if v.ID == "" || v.OrgID == "" || v.URL == "" {
		return webhookEndpoint{}, errors.New("id, orgId and url are required")
	}
	if !webhook.ValidSecret(v.Secret) {
		return webhookEndpoint{}, errors.New("secret is required: whsec_ and the base64 of 24 to 64 random bytes")
	}
	s := webhook.Settings{ID: v.ID, URL: v.URL, Types: v.Types, Secret: v.Secret}
	if v.Scopes != nil {
		s.Restriction.Scopes = []auth.Scope{}
		for _, sc := range v.Scopes {
			s.Restriction.Scopes = append(s.Restriction.Scopes, auth.Scope(sc))
		}
	}
	s.Restriction.ProjectIDs = v.ProjectIDs
	return webhookEndpoint{OrgID: v.OrgID, Settings: s, Sandbox: v.Sandbox}, nil
}

// webhooks is the running dispatcher, or nothing.
type webhooks struct{ d *webhook.Dispatcher }

// startWebhooks registers the data file's endpoints (those not yet in the
// store; a reload does not change them) and starts the dispatcher, whose
// secrets are sealed under a key derived from the signing key, its
// attempts counted on the metrics server when there is one.
func startWebhooks(ctx context.Context, cfg config, st portalStore, ds *dataset, signingKey []byte, log *slog.Logger, metrics *metricsServer) (webhooks, error) {
	ws, ev := st, st
	opts := []webhook.Option{webhook.WithAllowLocal(cfg.webhookAllowLocal), webhook.WithSchedule(cfg.webhookRetries), webhook.WithLogger(log)}
	if metrics != nil {
		opts = append(opts, webhook.WithObserver(otelstatus.WebhookObserver(otelstatus.WithMeterProvider(metrics.provider))))
	}
	if cfg.webhookAllowLocal {
		log.Warn("webhooks may be delivered over http and to local and private addresses (-webhooks-allow-local): for development only")
	}
	key := webhook.DeriveKey(signingKey)
	eps := webhook.NewEndpoints(ws, ev, key, opts...)
	for _, e := range ds.webhooks {
		_, _, err := eps.Create(ctx, e.orgID(), e.Settings)
		if err != nil && !errors.Is(err, store.ErrConflict) {
			return webhooks{}, fmt.Errorf("webhookEndpoints %s: %w", e.Settings.ID, err)
		}
	}
	d := webhook.NewDispatcher(ws, ev, key, opts...)
	d.Start(ctx)
	log.Info("delivering webhooks", "allow_local", cfg.webhookAllowLocal)
	return webhooks{d}, nil
}

// stop stops the dispatcher, waiting for attempts in flight until ctx is
// done.
func (w webhooks) stop(ctx context.Context) error {
	if w.d == nil {
		return nil
	}
	return w.d.Stop(ctx)
}
