package devsettings

import (
	"net/http"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// chartDays is how many days the usage chart shows, today last.
const chartDays = 7

type dayBar struct {
	Day                 string
	Requests            int64
	X, Y, Height, Label float64
}

type usageData struct {
	Plan     store.Plan
	Limited  bool
	Limit    int64
	Window   string
	Remain   int64
	Reset    time.Time
	HasLimit bool
	HasDays  bool
	Days     []dayBar
	Max      int64
}

// The chart's geometry, in SVG units.
const (
	chartW, chartH = 560.0, 220.0
	chartTop       = 20.0
	chartBottom    = 190.0
	barW           = 56.0
)

func (h *handler) usagePage(w http.ResponseWriter, r *http.Request) {
	q := req(r)
	org, err := h.st.Organization(r.Context(), q.Account.OrgID)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	d := usageData{Plan: org.Plan}
	if h.cfg.limiter != nil {
		p := auth.Principal{Org: org}
		p.Org.ID = q.orgID() // a sandbox has a budget of its own, on the live plan
		dec, err := h.cfg.limiter.Peek(r.Context(), p)
		if err != nil {
			h.failErr(w, r, err)
			return
		}
		d.HasLimit, d.Limited = true, dec.Limited
		d.Limit, d.Remain, d.Reset, d.Window = dec.Limit, dec.Remaining, dec.Reset, windowName(dec.Window)
	}
	if h.cfg.requests != nil {
		days, err := h.days(r)
		if err != nil {
			h.failErr(w, r, err)
			return
		}
		d.HasDays = true
		d.Days, d.Max = bars(days)
	}
	v := h.view(r, "usage", "Usage")
	v.Data = d
	h.render(w, r, http.StatusOK, "usage", v)
}

// windowName says a rate limit's window in words: "minute", "hour", or
// a duration.
func windowName(d time.Duration) string {
	switch d {
	case time.Minute:
		return "minute"
	case time.Hour:
		return "hour"
	case time.Second:
		return "second"
	}
	return d.String()
}

// bars lays out the last chartDays days as the chart's bars, and returns
// the tallest count (at least 1, so an idle week draws flat).
func bars(days []store.DayUsage) ([]dayBar, int64) {
	if len(days) > chartDays {
		days = days[len(days)-chartDays:]
	}
	top := int64(1)
	for _, d := range days {
		top = max(top, d.Requests)
	}
	out := make([]dayBar, len(days))
	step := chartW / chartDays
	for i, d := range days {
		hgt := float64(d.Requests) / float64(top) * (chartBottom - chartTop)
		out[i] = dayBar{Day: d.Day.UTC().Format("Mon 2 Jan"), Requests: d.Requests,
			X: float64(i)*step + (step-barW)/2, Y: chartBottom - hgt, Height: hgt, Label: float64(i)*step + step/2}
	}
	return out, top
}

// days returns the requests of each of the last chartDays UTC days of the
// request's organization (or its sandbox), oldest first.
func (h *handler) days(r *http.Request) ([]store.DayUsage, error) {
	u, err := h.cfg.requests.OrganizationUsage(r.Context(), req(r).orgID())
	if err != nil {
		return nil, err
	}
	today := store.UsageDay(h.cfg.now())
	out := make([]store.DayUsage, chartDays)
	index := make(map[int64]int, chartDays)
	for i := range out {
		out[i].Day = today.AddDate(0, 0, i-chartDays+1)
		index[out[i].Day.Unix()] = i
	}
	for _, d := range u.Days {
		if i, ok := index[store.UsageDay(d.Day).Unix()]; ok {
			out[i] = d
			out[i].Day = store.UsageDay(d.Day)
		}
	}
	return out, nil
}
