package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"
)

var (
	_ WebhookEndpoints = (*Memory)(nil)
	_ WebhookQueue     = (*Memory)(nil)
)

// memoryWebhooks is the Memory's webhook endpoints, their queue and their
// delivery log, under a lock of their own.
type memoryWebhooks struct {
	mu         sync.Mutex
	endpoints  map[[2]string]*WebhookEndpoint // by (org, id)
	jobs       map[[3]string]*WebhookJob      // by (org, endpoint, event)
	deliveries map[[2]string][]WebhookDelivery
	claims     int64
}

func (w *memoryWebhooks) init() {
	if w.endpoints == nil {
		w.endpoints = map[[2]string]*WebhookEndpoint{}
		w.jobs = map[[3]string]*WebhookJob{}
		w.deliveries = map[[2]string][]WebhookDelivery{}
	}
}

// dropOrganization deletes an organization's endpoints, their jobs and
// their deliveries (Memory.DeleteOrganization, under m.mu: the lock
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
	for k := range w.jobs {
		if k[0] == orgID {
			delete(w.jobs, k)
		}
	}
}

func copyEndpoint(e WebhookEndpoint) WebhookEndpoint {
	e.Types = slices.Clone(e.Types)
	e.Scopes = slices.Clone(e.Scopes)
	e.ProjectIDs = slices.Clone(e.ProjectIDs)
	e.Secret = slices.Clone(e.Secret)
	e.PreviousSecret = slices.Clone(e.PreviousSecret)
	return e
}

// CreateWebhookEndpoint implements WebhookEndpoints. Its CreatedAt and
// UpdatedAt are the Memory's clock.
func (m *Memory) CreateWebhookEndpoint(ctx context.Context, e WebhookEndpoint) error {
	if err := alive(ctx); err != nil {
		return err
	}
	// The organization is read under m.mu, held until the endpoint is
	// in: DeleteOrganization, which drops the organization's endpoints
	// under m.mu too, comes wholly before or after.
	m.mu.RLock()
	defer m.mu.RUnlock()
	if _, ok := m.orgs[e.OrgID]; !ok {
		return fmt.Errorf("store: organization %s: %w", e.OrgID, ErrNotFound)
	}
	w := &m.webhooks
	w.mu.Lock()
	defer w.mu.Unlock()
	w.init()
	k := [2]string{e.OrgID, e.ID}
	if _, ok := w.endpoints[k]; ok {
		return fmt.Errorf("store: webhook endpoint %s: %w", e.ID, ErrConflict)
	}
	e = copyEndpoint(e)
	e.CreatedAt = kept(m.now())
	e.UpdatedAt = e.CreatedAt
	w.endpoints[k] = &e
	return nil
}

// GetWebhookEndpoint implements WebhookEndpoints.
func (m *Memory) GetWebhookEndpoint(ctx context.Context, orgID, id string) (WebhookEndpoint, error) {
	if err := alive(ctx); err != nil {
		return WebhookEndpoint{}, err
	}
	w := &m.webhooks
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.endpoints[[2]string{orgID, id}]
	if !ok {
		return WebhookEndpoint{}, fmt.Errorf("store: webhook endpoint %s: %w", id, ErrNotFound)
	}
	return copyEndpoint(*e), nil
}

// ListWebhookEndpoints implements WebhookEndpoints.
func (m *Memory) ListWebhookEndpoints(ctx context.Context, orgID string, q WebhookEndpointQuery) (Page[WebhookEndpoint], error) {
	if err := alive(ctx); err != nil {
		return Page[WebhookEndpoint]{}, err
	}
	w := &m.webhooks
	w.mu.Lock()
	var all []*WebhookEndpoint
	for k, e := range w.endpoints {
		if k[0] == orgID && q.Keeps(e) {
			c := copyEndpoint(*e)
			all = append(all, &c)
		}
	}
	w.mu.Unlock()
	slices.SortFunc(all, func(a, b *WebhookEndpoint) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return page(all, nil, q.PageRequest, copyEndpoint, time.Time{}, 0)
}

// UpdateWebhookEndpoint implements WebhookEndpoints.
func (m *Memory) UpdateWebhookEndpoint(ctx context.Context, orgID, id string, fn func(*WebhookEndpoint) error) (WebhookEndpoint, error) {
	if err := alive(ctx); err != nil {
		return WebhookEndpoint{}, err
	}
	w := &m.webhooks
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.endpoints[[2]string{orgID, id}]
	if !ok {
		return WebhookEndpoint{}, fmt.Errorf("store: webhook endpoint %s: %w", id, ErrNotFound)
	}
	c := copyEndpoint(*e)
	if err := fn(&c); err != nil {
		return WebhookEndpoint{}, err
	}
	c.ID, c.OrgID, c.Cursor, c.CreatedAt = e.ID, e.OrgID, e.Cursor, e.CreatedAt
	c.UpdatedAt = later(kept(m.now()), e.UpdatedAt)
	*e = copyEndpoint(c)
	return c, nil
}

// DeleteWebhookEndpoint implements WebhookEndpoints.
func (m *Memory) DeleteWebhookEndpoint(ctx context.Context, orgID, id string) error {
	if err := alive(ctx); err != nil {
		return err
	}
	w := &m.webhooks
	w.mu.Lock()
	defer w.mu.Unlock()
	k := [2]string{orgID, id}
	if _, ok := w.endpoints[k]; !ok {
		return fmt.Errorf("store: webhook endpoint %s: %w", id, ErrNotFound)
	}
	delete(w.endpoints, k)
	delete(w.deliveries, k)
	for jk := range w.jobs {
		if jk[0] == orgID && jk[1] == id {
			delete(w.jobs, jk)
		}
	}
	return nil
}

// ListWebhookDeliveries implements WebhookEndpoints.
func (m *Memory) ListWebhookDeliveries(ctx context.Context, orgID, endpointID string, q WebhookDeliveryQuery) (Page[WebhookDelivery], error) {
	if err := alive(ctx); err != nil {
		return Page[WebhookDelivery]{}, err
	}
	w := &m.webhooks
	w.mu.Lock()
	k := [2]string{orgID, endpointID}
	if _, ok := w.endpoints[k]; !ok {
		w.mu.Unlock()
		return Page[WebhookDelivery]{}, fmt.Errorf("store: webhook endpoint %s: %w", endpointID, ErrNotFound)
	}
	var all []*WebhookDelivery
	log := w.deliveries[k]
	for i := len(log) - 1; i >= 0; i-- { // newest first
		if !log[i].AttemptedAt.Before(q.Since) {
			d := log[i]
			all = append(all, &d)
		}
	}
	w.mu.Unlock()
	return page(all, nil, q.PageRequest, func(d WebhookDelivery) WebhookDelivery { return d }, time.Time{}, 0)
}

// EnabledWebhookEndpoints implements WebhookQueue.
func (m *Memory) EnabledWebhookEndpoints(ctx context.Context) ([]WebhookEndpoint, error) {
	if err := alive(ctx); err != nil {
		return nil, err
	}
	w := &m.webhooks
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []WebhookEndpoint
	for _, e := range w.endpoints {
		if e.Enabled {
			out = append(out, copyEndpoint(*e))
		}
	}
	slices.SortFunc(out, func(a, b WebhookEndpoint) int { return cmp.Or(cmp.Compare(a.OrgID, b.OrgID), cmp.Compare(a.ID, b.ID)) })
	return out, nil
}

// EnqueueWebhookJobs implements WebhookQueue.
func (m *Memory) EnqueueWebhookJobs(ctx context.Context, orgID, endpointID, from, to string, jobs []WebhookJob) error {
	if err := alive(ctx); err != nil {
		return err
	}
	w := &m.webhooks
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.endpoints[[2]string{orgID, endpointID}]
	if !ok {
		return fmt.Errorf("store: webhook endpoint %s: %w", endpointID, ErrNotFound)
	}
	if e.Cursor != from || !e.Enabled {
		return fmt.Errorf("store: webhook endpoint %s: cursor moved or endpoint disabled: %w", endpointID, ErrConflict)
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
	horizon := now.Add(-WebhookRetention)
	log := w.deliveries[[2]string{orgID, endpointID}]
	n, _ := slices.BinarySearchFunc(log, horizon, func(d WebhookDelivery, t time.Time) int { return d.AttemptedAt.Compare(t) })
	w.deliveries[[2]string{orgID, endpointID}] = log[n:]
	for k, j := range w.jobs {
		if k[0] == orgID && k[1] == endpointID && j.Due.IsZero() && j.QueuedAt.Before(horizon) {
			delete(w.jobs, k)
		}
	}
	return nil
}

// ClaimWebhookJobs implements WebhookQueue.
func (m *Memory) ClaimWebhookJobs(ctx context.Context, now time.Time, limit int, claim time.Duration) ([]WebhookJob, error) {
	if err := alive(ctx); err != nil {
		return nil, err
	}
	w := &m.webhooks
	w.mu.Lock()
	defer w.mu.Unlock()
	var due []*WebhookJob
	for _, j := range w.jobs {
		e := w.endpoints[[2]string{j.OrgID, j.EndpointID}]
		if !j.Due.IsZero() && !j.Due.After(now) && e != nil && e.Enabled {
			due = append(due, j)
		}
	}
	slices.SortFunc(due, func(a, b *WebhookJob) int { return cmp.Or(a.Due.Compare(b.Due), cmp.Compare(a.EventID, b.EventID)) })
	var out []WebhookJob
	for _, j := range due[:min(limit, len(due))] {
		w.claims++
		j.Claim = strconv.FormatInt(w.claims, 10)
		j.Due = now.Add(claim) // due again when the claim expires
		c := *j
		c.Body = slices.Clone(j.Body)
		out = append(out, c)
	}
	return out, nil
}

// FinishWebhookAttempt implements WebhookQueue. Attempts and finished jobs
// older than WebhookRetention are dropped by EnqueueWebhookJobs.
func (m *Memory) FinishWebhookAttempt(ctx context.Context, job WebhookJob, d WebhookDelivery, o WebhookOutcome) error {
	if err := alive(ctx); err != nil {
		return err
	}
	w := &m.webhooks
	w.mu.Lock()
	defer w.mu.Unlock()
	k := [2]string{job.OrgID, job.EndpointID}
	e, ok := w.endpoints[k]
	if !ok {
		return fmt.Errorf("store: webhook endpoint %s: %w", job.EndpointID, ErrNotFound)
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
func (m *Memory) RequeueWebhookJob(ctx context.Context, orgID, endpointID, eventID string, now time.Time) error {
	if err := alive(ctx); err != nil {
		return err
	}
	w := &m.webhooks
	w.mu.Lock()
	defer w.mu.Unlock()
	j, ok := w.jobs[[3]string{orgID, endpointID, eventID}]
	if !ok || j.QueuedAt.Before(now.Add(-WebhookRetention)) {
		return fmt.Errorf("store: webhook endpoint %s: event %s: %w", endpointID, eventID, ErrNotFound)
	}
	j.Due, j.Claim, j.QueuedAt = now, "", kept(now)
	return nil
}
