package devsettings

import (
	"errors"
	"net/http"
	"slices"

	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/webhook"
)

func (h *handler) webhookRoutes(m string) {
	h.mux.HandleFunc("GET "+m+"/webhooks", h.webhooksPage)
	h.mux.HandleFunc("POST "+m+"/webhooks", h.addEndpoint)
	h.mux.HandleFunc("GET "+m+"/webhooks/{id}", h.endpointPage)
	h.mux.HandleFunc("POST "+m+"/webhooks/{id}/reveal", h.revealSecret)
	h.mux.HandleFunc("POST "+m+"/webhooks/{id}/rotate", h.rotateSecret)
	h.mux.HandleFunc("POST "+m+"/webhooks/{id}/disable", h.enableEndpoint(false))
	h.mux.HandleFunc("POST "+m+"/webhooks/{id}/enable", h.enableEndpoint(true))
	h.mux.HandleFunc("POST "+m+"/webhooks/{id}/test", h.sendTest)
}

// eventTypes are the event types an endpoint may be given, in the
// contract's order: each kind's created, updated and deleted, then its
// statuses.
var eventTypes = func() []string {
	statuses := map[store.Kind][]string{
		store.KindProject:     names(store.ProjectStatuses),
		store.KindMilestone:   names(store.MilestoneStatuses),
		store.KindDeliverable: names(store.DeliverableStatuses),
		store.KindInvoice:     names(store.InvoiceStatuses),
		store.KindThread:      names(store.ThreadStatuses),
	}
	var out []string
	for _, k := range store.Kinds {
		for _, a := range append([]string{"created", "updated", "deleted"}, statuses[k]...) {
			out = append(out, string(k)+"."+a)
		}
	}
	return out
}()

func names[S ~string](ss []S) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}

type endpointRow struct {
	store.WebhookEndpoint
	Status       string
	LastDelivery *store.WebhookDelivery
}

type webhooksData struct {
	Rows  []endpointRow
	Pager pager
	Types []choice
	URL   string
	All   bool
}

// status says an endpoint's state in words.
func status(e store.WebhookEndpoint) string {
	if e.Enabled {
		return "enabled"
	}
	if e.DisabledReason != "" {
		return "disabled (" + e.DisabledReason + ")"
	}
	return "disabled"
}

func (h *handler) webhooksPage(w http.ResponseWriter, r *http.Request) {
	h.showWebhooks(w, r, http.StatusOK, "", "", nil)
}

func (h *handler) showWebhooks(w http.ResponseWriter, r *http.Request, code int, problem, rawURL string, types []string) {
	page, ok := pageOf(r)
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "The page number must be a whole number from 1.")
		return
	}
	org := req(r).orgID()
	p, err := h.cfg.webhooks.List(r.Context(), org, store.PageRequest{Page: page, Limit: pageSize})
	if err != nil && !errors.Is(err, store.ErrNotFound) { // a sandbox not made yet has none
		h.failErr(w, r, err)
		return
	}
	d := webhooksData{URL: rawURL, All: len(types) == 0 || slices.Contains(types, "*")}
	for _, e := range p.Items {
		row := endpointRow{WebhookEndpoint: e, Status: status(e)}
		last, err := h.deliveries(r, e.ID, 1, 1)
		if err != nil {
			h.failErr(w, r, err)
			return
		}
		if len(last.Items) > 0 {
			row.LastDelivery = &last.Items[0]
		}
		d.Rows = append(d.Rows, row)
	}
	for _, t := range eventTypes {
		d.Types = append(d.Types, choice{Value: t, Checked: slices.Contains(types, t)})
	}
	v := h.view(r, "webhooks", "Webhooks")
	v.Error = problem
	d.Pager = newPager(v.Link("webhooks"), nil, page, p.Total)
	v.Data = d
	h.render(w, r, code, "webhooks", v)
}

func (h *handler) addEndpoint(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		h.fail(w, r, http.StatusBadRequest, "The form could not be read.")
		return
	}
	raw, types := r.PostFormValue("url"), r.PostForm["type"]
	if r.PostFormValue("all") != "" || len(types) == 0 {
		types = []string{"*"}
	}
	for _, t := range types {
		if t != "*" && !slices.Contains(eventTypes, t) {
			h.showWebhooks(w, r, http.StatusBadRequest, "Choose event types from the list.", raw, nil)
			return
		}
	}
	if err := h.prepare(r); err != nil {
		h.failErr(w, r, err)
		return
	}
	e, _, err := h.cfg.webhooks.Create(r.Context(), req(r).orgID(), webhook.Settings{URL: raw, Types: types})
	if errors.Is(err, store.ErrInvalid) {
		h.showWebhooks(w, r, http.StatusBadRequest, "The endpoint could not be added: "+err.Error(), raw, types)
		return
	}
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	h.changed(r, "webhook_endpoint.created", e.ID)
	seeOther(w, r, "added", "webhooks", e.ID)
}

type endpointData struct {
	store.WebhookEndpoint
	Status     string
	Secret     string
	SecretNote string
	Deliveries []deliveryRow
	Pager      pager
}

type deliveryRow struct {
	store.WebhookDelivery
	DurationMs int64
}

func (h *handler) endpointPage(w http.ResponseWriter, r *http.Request) {
	h.showEndpoint(w, r, "", "")
}

// showEndpoint renders an endpoint's page, with a secret shown this once
// and a note saying which.
func (h *handler) showEndpoint(w http.ResponseWriter, r *http.Request, secret, note string) {
	page, ok := pageOf(r)
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "The page number must be a whole number from 1.")
		return
	}
	e, err := h.cfg.webhooks.Get(r.Context(), req(r).orgID(), r.PathValue("id"))
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	ds, err := h.deliveries(r, e.ID, page, pageSize)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	d := endpointData{WebhookEndpoint: e, Status: status(e), Secret: secret, SecretNote: note}
	for _, x := range ds.Items {
		d.Deliveries = append(d.Deliveries, deliveryRow{WebhookDelivery: x, DurationMs: x.Duration.Milliseconds()})
	}
	v := h.view(r, "webhooks", "Webhook endpoint")
	d.Pager = newPager(v.Link("webhooks", e.ID), nil, page, ds.Total)
	v.Data = d
	h.render(w, r, http.StatusOK, "endpoint", v)
}

func (h *handler) revealSecret(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := h.cfg.webhooks.Get(r.Context(), req(r).orgID(), id); err != nil {
		h.failErr(w, r, err)
		return
	}
	secret, err := h.reveal(r, id)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	h.changed(r, "webhook_endpoint.secret_revealed", id)
	h.showEndpoint(w, r, secret, "This is the endpoint's signing secret. It is shown on this page only: reveal it again when you need it.")
}

func (h *handler) rotateSecret(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	secret, err := h.cfg.webhooks.RotateSecret(r.Context(), req(r).orgID(), id)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	h.changed(r, "webhook_endpoint.secret_rotated", id)
	h.showEndpoint(w, r, secret, "This is the endpoint's new signing secret. For 24 hours deliveries are signed with both the old and the new one, so that your receiver can move to it.")
}

func (h *handler) enableEndpoint(on bool) http.HandlerFunc {
	action, done := "webhook_endpoint.disabled", "disabled"
	if on {
		action, done = "webhook_endpoint.enabled", "enabled"
	}
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		if _, err := h.cfg.webhooks.Update(r.Context(), req(r).orgID(), id, webhook.Update{Enabled: &on}); err != nil {
			h.failErr(w, r, err)
			return
		}
		h.changed(r, action, id)
		seeOther(w, r, done, "webhooks", id)
	}
}

func (h *handler) sendTest(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := h.cfg.webhooks.Get(r.Context(), req(r).orgID(), id); err != nil {
		h.failErr(w, r, err)
		return
	}
	if err := h.test(r, id); errors.Is(err, webhook.ErrDisabled) {
		h.fail(w, r, http.StatusConflict, "This endpoint is disabled: enable it to send it a test event.")
		return
	} else if err != nil {
		h.failErr(w, r, err)
		return
	}
	h.changed(r, "webhook_endpoint.test_sent", id)
	seeOther(w, r, "sent", "webhooks", id)
}
