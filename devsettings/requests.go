package devsettings

import (
	"cmp"
	"net/http"
	"net/url"

	"github.com/clientstatus/clientstatus/store"
)

// statusClasses are the Status filter's choices and their classes.
var statusClasses = []struct {
	Value, Label string
	class        int
}{{"", "all", 0}, {"2xx", "2xx", 2}, {"4xx", "4xx", 4}, {"5xx", "5xx", 5}}

type requestRow struct {
	store.RequestRecord
	Key        string
	DurationMs int64
}

// selectOption is an option of a select.
type selectOption struct {
	Value, Label string
	Selected     bool
}

type requestsData struct {
	Rows     []requestRow
	Pager    pager
	Statuses []selectOption
	Keys     []selectOption
}

func (h *handler) requestsPage(w http.ResponseWriter, r *http.Request) {
	page, ok := pageOf(r)
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "The page number must be a whole number from 1.")
		return
	}
	query := r.URL.Query()
	status, keyID := query.Get("status"), query.Get("key")
	q := store.RequestLogQuery{PageRequest: store.PageRequest{Page: page, Limit: pageSize}, KeyID: keyID}
	d := requestsData{}
	found := false
	for _, c := range statusClasses {
		d.Statuses = append(d.Statuses, selectOption{Value: c.Value, Label: c.Label, Selected: c.Value == status})
		if c.Value == status {
			q.Class, found = c.class, true
		}
	}
	if !found {
		h.fail(w, r, http.StatusBadRequest, "Choose the status from the list: all, 2xx, 4xx or 5xx.")
		return
	}
	keys, err := h.modeKeys(r)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	names := make(map[string]string, len(keys))
	d.Keys = append(d.Keys, selectOption{Value: "", Label: "all keys", Selected: keyID == ""})
	for _, k := range keys {
		label := k.Name + " (" + k.Prefix + "…)"
		names[k.ID] = label
		d.Keys = append(d.Keys, selectOption{Value: k.ID, Label: label, Selected: k.ID == keyID})
	}
	if _, ok := names[keyID]; keyID != "" && !ok {
		h.fail(w, r, http.StatusNotFound, "There is no such key in your organization.")
		return
	}
	p, err := h.cfg.requests.ListRequestLogs(r.Context(), req(r).orgID(), q)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	for _, rec := range p.Items {
		d.Rows = append(d.Rows, requestRow{RequestRecord: rec, Key: cmp.Or(names[rec.KeyID], rec.KeyID), DurationMs: rec.Duration.Milliseconds()})
	}
	v := h.view(r, "requests", "Requests")
	filters := url.Values{}
	if status != "" {
		filters.Set("status", status)
	}
	if keyID != "" {
		filters.Set("key", keyID)
	}
	d.Pager = newPager(v.Link("requests"), filters, page, p.Total)
	v.Data = d
	h.render(w, r, http.StatusOK, "requests", v)
}
