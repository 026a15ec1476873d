package memstore

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

var (
	_ store.WebhookEndpoints = (*Store)(nil)
	_ store.WebhookQueue     = (*Store)(nil)
)

// memoryWebhooks is the Store's webhook endpoints, their queue and their
// delivery log, under a lock of their own.
type memoryWebhooks struct {
	mu         sync.Mutex
	endpoints  map[[2]string]*store.WebhookEndpoint // by (org, id)
	jobs       map[[3]string]*store.WebhookJob      // by (org, endpoint, event)
	deliveries map[[2]string][]store.WebhookDelivery
	claims     int64
}

func (w *memoryWebhooks) init() {
	if w.endpoints == nil {
		w.endpoints = map[[2]string]*store.WebhookEndpoint{}
		w.jobs = map[[3]string]*store.WebhookJob{}
		w.deliveries = map[[2]string][]store.WebhookDelivery{}
	}
}

// dropOrganization deletes an organization's endpoints, their jobs and
// their deliveries (Store.DeleteOrganization, under m.mu: the lock
// order is m.mu, then w.mu).
func (w *memoryWebhooks) dropOrganization(orgID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k := range w.endpoints {
		if k[0] == orgID {
			delete(w.endpoints, k)
			delete(w.deliveries, k)
		}
	}
	maps.DeleteFunc(w.jobs, func(k [3]string, _ *store.WebhookJob) bool { return k[0] == orgID })
}

func copyEndpoint(e store.WebhookEndpoint) store.WebhookEndpoint {
	e.Types = slices.Clone(e.Types)
	e.Scopes = slices.Clone(e.Scopes)
	e.ProjectIDs = slices.Clone(e.ProjectIDs)
	e.Secret = slices.Clone(e.Secret)
	e.PreviousSecret = slices.Clone(e.PreviousSecret)
	return e
}

// CreateWebhookEndpoint implements WebhookEndpoints. Its CreatedAt and
// UpdatedAt are the Store's clock.
func (m *Store) CreateWebhookEndpoint(ctx context.Context, e store.WebhookEndpoint) error {
	if err := alive(ctx); err != nil {
		return err
	}
	// The organization is read under m.mu, held until the endpoint is
	// in: DeleteOrganization, which drops the organization's endpoints
	// under m.mu too, comes wholly before or after.
	m.mu.RLock()
	defer m.mu.RUnlock()
	if _, ok := m.orgs[e.OrgID]; !ok {
		return fmt.Errorf("store: organization %s: %w", e.OrgID, store.ErrNotFound)
	}
	w := &m.webhooks
	w.mu.Lock()
	defer w.mu.Unlock()
	w.init()
	k := [2]string{e.OrgID, e.ID}
	if _, ok := w.endpoints[k]; ok {
		return fmt.Errorf("store: webhook endpoint %s: %w", e.ID, store.ErrConflict)
	}
	e = copyEndpoint(e)
	e.CreatedAt = kept(m.now())
	e.UpdatedAt = e.CreatedAt
	w.endpoints[k] = &e
	return nil
}

// GetWebhookEndpoint implements WebhookEndpoints.
func (m *Store) GetWebhookEndpoint(ctx context.Context, orgID, id string) (store.WebhookEndpoint, error) {
	if err := alive(ctx); err != nil {
		return store.WebhookEndpoint{}, err
	}
	w := &m.webhooks
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.endpoints[[2]string{orgID, id}]
	if !ok {
		return store.WebhookEndpoint{}, fmt.Errorf("store: webhook endpoint %s: %w", id, store.ErrNotFound)
	}
	return copyEndpoint(*e), nil
}

// ListWebhookEndpoints implements WebhookEndpoints.
func (m *Store) ListWebhookEndpoints(ctx context.Context, orgID string, q store.WebhookEndpointQuery) (store.Page[store.WebhookEndpoint], error) {
	if err := alive(ctx); err != nil {
		return store.Page[store.WebhookEndpoint]{}, err
	}
	w := &m.webhooks
	w.mu.Lock()
	var all []*store.WebhookEndpoint
	for k, e := range w.endpoints {
		if k[0] == orgID && q.Keeps(e) {
			c := copyEndpoint(*e)
			all = append(all, &c)
		}
	}
	w.mu.Unlock()
	slices.SortFunc(all, func(a, b *store.WebhookEndpoint) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return page(all, nil, q.PageRequest, copyEndpoint, time.Time{}, 0)
}

// UpdateWebhookEndpoint implements WebhookEndpoints.
func (m *Store) UpdateWebhookEndpoint(ctx context.Context, orgID, id string, fn func(*store.WebhookEndpoint) error) (store.WebhookEndpoint, error) {
	if err := alive(ctx); err != nil {
		return store.WebhookEndpoint{}, err
	}
	w := &m.webhooks
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.endpoints[[2]string{orgID, id}]
	if !ok {
		return store.WebhookEndpoint{}, fmt.Errorf("store: webhook endpoint %s: %w", id, store.ErrNotFound)
	}
	c := copyEndpoint(*e)
	if err := fn(&c); err != nil {
		return store.WebhookEndpoint{}, err
	}
	c.ID, c.OrgID, c.Cursor, c.CreatedAt = e.ID, e.OrgID, e.Cursor, e.CreatedAt
	c.UpdatedAt = later(kept(m.now()), e.UpdatedAt)
	*e = copyEndpoint(c)
	return c, nil
}

// DeleteWebhookEndpoint implements WebhookEndpoints.
func (m *Store) DeleteWebhookEndpoint(ctx context.Context, orgID, id string) error {
	if err := alive(ctx); err != nil {
		return err
	}
	w := &m.webhooks
	w.mu.Lock()
	defer w.mu.Unlock()
	k := [2]string{orgID, id}
	if _, ok := w.endpoints[k]; !ok {
		return fmt.Errorf("store: webhook endpoint %s: %w", id, store.ErrNotFound)
	}
	delete(w.endpoints, k)
	delete(w.deliveries, k)
	maps.DeleteFunc(w.jobs, func(jk [3]string, _ *store.WebhookJob) bool { return jk[0] == orgID && jk[1] == id })
	return nil
}

// ListWebhookDeliveries implements WebhookEndpoints.
func (m *Store) ListWebhookDeliveries(ctx context.Context, orgID, endpointID string, q store.WebhookDeliveryQuery) (store.Page[store.WebhookDelivery], error) {
	if err := alive(ctx); err != nil {
		return store.Page[store.WebhookDelivery]{}, err
	}
	w := &m.webhooks
	w.mu.Lock()
	k := [2]string{orgID, endpointID}
	if _, ok := w.endpoints[k]; !ok {
		w.mu.Unlock()
		return store.Page[store.WebhookDelivery]{}, fmt.Errorf("store: webhook endpoint %s: %w", endpointID, store.ErrNotFound)
	}
	var all []*store.WebhookDelivery
	log := w.deliveries[k]
	for i := len(log) - 1; i >= 0; i-- { // newest first
		if !log[i].AttemptedAt.Before(q.Since) {
			d := log[i]
			all = append(all, &d)
		}
	}
	w.mu.Unlock()
	return page(all, nil, q.PageRequest, func(d store.WebhookDelivery) store.WebhookDelivery { return d }, time.Time{}, 0)
}

// EnabledWebhookEndpoints implements WebhookQueue.
func (m *Store) EnabledWebhookEndpoints(ctx context.Context) ([]store.WebhookEndpoint, error) {
	if err := alive(ctx); err != nil {
		return nil, err
	}
	w := &m.webhooks
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []store.WebhookEndpoint
	for _, e := range w.endpoints {
		if e.Enabled {
			out = append(out, copyEndpoint(*e))
		}
	}
	slices.SortFunc(out, func(a, b store.WebhookEndpoint) int {
		return cmp.Or(cmp.Compare(a.OrgID, b.OrgID), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// EnqueueWebhookJobs implements WebhookQueue.
func (m *Store) EnqueueWebhookJobs(ctx context.Context, orgID, endpointID, from, to string, jobs []store.WebhookJob) error {
	if err := alive(ctx); err != nil {
		return err
	}
	w := &m.webhooks
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.endpoints[[2]string{orgID, endpointID}]
	if !ok {
		return fmt.Errorf("store: webhook endpoint %s: %w", endpointID, store.ErrNotFound)
	}
	if e.Cursor != from || !e.Enabled {
		return fmt.Errorf("store: webhook endpoint %s: cursor moved or endpoint disabled: %w", endpointID, store.ErrConflict)
	}
	now := kept(m.now())
	for _, j := range jobs {
		k := [3]string{orgID, endpointID, j.EventID}
		if _, ok := w.jobs[k]; ok {
			continue
		}
		j.OrgID, j.EndpointID, j.Body, j.Claim = orgID, endpointID, slices.Clone(j.Body), ""
		if j.QueuedAt.IsZero() {
			j.QueuedAt = now
		}
		if j.Due.IsZero() {
			j.Due = j.QueuedAt
		}
		w.jobs[k] = &j
	}
	e.Cursor = to
	// What is past WebhookRetention goes, a page of events at a time.
	horizon := now.Add(-store.WebhookRetention)
	log := w.deliveries[[2]string{orgID, endpointID}]
	n, _ := slices.BinarySearchFunc(log, horizon, func(d store.WebhookDelivery, t time.Time) int { return d.AttemptedAt.Compare(t) })
	w.deliveries[[2]string{orgID, endpointID}] = log[n:]
	maps.DeleteFunc(w.jobs, func(k [3]string, j *store.WebhookJob) bool {
		return k[0] == orgID && k[1] == endpointID && j.Due.IsZero() && j.QueuedAt.Before(horizon)
	})
	return nil
}

// ClaimWebhookJobs implements WebhookQueue.
func (m *Store) ClaimWebhookJobs(ctx context.Context, now time.Time, limit int, claim time.Duration) ([]store.WebhookJob, error) {
	if err := alive(ctx); err != nil {
		return nil, err
	}
	w := &m.webhooks
	w.mu.Lock()
	defer w.mu.Unlock()
	var due []*store.WebhookJob
	for _, j := range w.jobs {
		e := w.endpoints[[2]string{j.OrgID, j.EndpointID}]
		if !j.Due.IsZero() && !j.Due.After(now) && e != nil && e.Enabled {
			due = append(due, j)
		}
	}
	slices.SortFunc(due, func(a, b *store.WebhookJob) int {
		return cmp.Or(a.Due.Compare(b.Due), cmp.Compare(a.EventID, b.EventID))
	})
	var out []store.WebhookJob
	for _, j := range due[:min(limit, len(due))] {
		w.claims++
		j.Claim = strconv.FormatInt(w.claims, 10)
		j.Due = now.Add(claim) // due again when the claim expires
		c := *j
		c.Body = slices.Clone(j.Body)
		c.Endpoint = copyEndpoint(*w.endpoints[[2]string{j.OrgID, j.EndpointID}])
		out = append(out, c)
	}
	return out, nil
}

// FinishWebhookAttempt implements WebhookQueue. Attempts and finished jobs
// older than WebhookRetention are dropped by EnqueueWebhookJobs.
func (m *Store) FinishWebhookAttempt(ctx context.Context, job store.WebhookJob, d store.WebhookDelivery, o store.WebhookOutcome) error {
	if err := alive(ctx); err != nil {
		return err
	}
	w := &m.webhooks
	w.mu.Lock()
	defer w.mu.Unlock()
	k := [2]string{job.OrgID, job.EndpointID}
	e, ok := w.endpoints[k]
	if !ok {
		return fmt.Errorf("store: webhook endpoint %s: %w", job.EndpointID, store.ErrNotFound)
	}
	w.deliveries[k] = append(w.deliveries[k], d)
	j, ok := w.jobs[[3]string{job.OrgID, job.EndpointID, job.EventID}]
	if !ok || j.Claim != job.Claim {
		return nil // the claim expired and another caller has the job
	}
	j.Attempts, j.Claim, j.Due = d.Attempt, "", o.Retry
	switch {
	case o.Success:
		e.FailingSince = time.Time{}
	case e.FailingSince.IsZero():
		e.FailingSince = d.AttemptedAt
	}
	if o.Disable != "" && e.Enabled {
		e.Enabled, e.DisabledReason = false, o.Disable
		e.UpdatedAt = later(kept(m.now()), e.UpdatedAt)
	}
	return nil
}

// RequeueWebhookJob implements WebhookQueue.
func (m *Store) RequeueWebhookJob(ctx context.Context, orgID, endpointID, eventID string, now time.Time) error {
	if err := alive(ctx); err != nil {
		return err
	}
	w := &m.webhooks
	w.mu.Lock()
	defer w.mu.Unlock()
	j, ok := w.jobs[[3]string{orgID, endpointID, eventID}]
	if !ok || j.QueuedAt.Before(now.Add(-store.WebhookRetention)) {
		return fmt.Errorf("store: webhook endpoint %s: event %s: %w", endpointID, eventID, store.ErrNotFound)
	}
	j.Due, j.Claim, j.QueuedAt = now, "", kept(now)
	return nil
}
