package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/store"
)

// WebhookStore is what the part of the suite of webhooks (RunWebhooks)
// tests: a store's webhook endpoints and delivery queue, and the writer
// and deleter of the organizations they belong to.
type WebhookStore interface {
	store.Writer
	store.Deleter
	store.WebhookEndpoints
	store.WebhookQueue
}

// RunWebhooks runs the part of the suite of webhooks as subtests of t.
// open must return a fresh, empty store each time it is called, and
// arrange its cleanup with t.Cleanup.
func RunWebhooks(t *testing.T, open func(t *testing.T) WebhookStore, opts ...Option) {
	runPart(t, "RunWebhooks", []suiteCase{{"OfDeletedOrganization", testWebhooksOfDeletedOrganization}}, false, func(t *testing.T) subject {
		s := open(t)
		return subject{Writer: s, Deleter: s, WebhookEndpoints: s, WebhookQueue: s}
	}, opts)
}

// testWebhooksOfDeletedOrganization: deleting an organization deletes its
// webhook endpoints, their pending deliveries and their log, and leaves
// another organization's alone; an organization made again with the same
// id starts with none of them.
func testWebhooksOfDeletedOrganization(t *testing.T, open func(t *testing.T) subject) {
	s := open(t)
	is := is.New(t)
	f := seedData()
	f.put(t, s)
	now := time.Now().UTC().Truncate(time.Second)
	for _, org := range []string{orgA, orgB} {
		e := store.WebhookEndpoint{ID: "we_1", OrgID: org, URL: "https://hooks.example.com/" + org, Types: []string{"*"},
			Enabled: true, Secret: []byte("sealed")}
		is.NoErr(s.CreateWebhookEndpoint(ctx, e))
		is.NoErr(s.EnqueueWebhookJobs(ctx, org, "we_1", "", "evt_2", []store.WebhookJob{
			{EventID: "evt_1", EventType: "invoice.paid", Body: []byte(`{}`), Due: now, QueuedAt: now},
			{EventID: "evt_2", EventType: "invoice.paid", Body: []byte(`{}`), Due: now, QueuedAt: now},
		}))
	}
	// One attempt each, failed, to be retried: a log, and jobs pending.
	jobs, err := s.ClaimWebhookJobs(ctx, now, 2, time.Minute)
	is.NoErr(err)
	is.Equal(len(jobs), 2)
	for _, j := range jobs {
		is.NoErr(s.FinishWebhookAttempt(ctx, j, store.WebhookDelivery{ID: "whd_" + j.OrgID + j.EventID, EndpointID: j.EndpointID,
			EventID: j.EventID, EventType: j.EventType, Attempt: 1, AttemptedAt: now, StatusCode: 503}, store.WebhookOutcome{Retry: now}))
	}

	is.NoErr(s.DeleteOrganization(ctx, orgA))
	_, err = s.GetWebhookEndpoint(ctx, orgA, "we_1")
	is.True(errors.Is(err, store.ErrNotFound)) // a deleted organization's endpoint is gone
	enabled, err := s.EnabledWebhookEndpoints(ctx)
	is.NoErr(err)
	is.Equal(len(enabled), 1)        // only the other organization's endpoint is left to deliver to
	is.Equal(enabled[0].OrgID, orgB) // and it is the other organization's
	jobs, err = s.ClaimWebhookJobs(ctx, now.Add(time.Hour), 10, time.Minute)
	is.NoErr(err)
	is.Equal(len(jobs), 2) // the other organization's two pending deliveries, none of the deleted one's
	for _, j := range jobs {
		is.Equal(j.OrgID, orgB) // no pending delivery of the deleted organization is handed out
	}
	is.True(errors.Is(s.RequeueWebhookJob(ctx, orgA, "we_1", "evt_1", now), store.ErrNotFound)) // nor can it be redelivered

	// The organization made again, with an endpoint of the same id:
	// nothing of the old one comes back.
	f.put(t, s)
	is.NoErr(s.CreateWebhookEndpoint(ctx, store.WebhookEndpoint{ID: "we_1", OrgID: orgA, URL: "https://hooks.example.com/new",
		Types: []string{"*"}, Enabled: true, Secret: []byte("sealed")}))
	log, err := s.ListWebhookDeliveries(ctx, orgA, "we_1", store.WebhookDeliveryQuery{PageRequest: all})
	is.NoErr(err)
	is.Equal(log.Total, 0) // the deleted endpoint's attempts are not the new one's
	jobs, err = s.ClaimWebhookJobs(ctx, now.Add(2*time.Hour), 10, time.Minute)
	is.NoErr(err)
	for _, j := range jobs {
		is.Equal(j.OrgID, orgB) // the deleted endpoint's jobs are not the new one's
	}
	is.True(errors.Is(s.RequeueWebhookJob(ctx, orgA, "we_1", "evt_1", now), store.ErrNotFound)) // nor its events
}
