package devsettings_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/store"
)

// logRequests appends n requests of key to org's log, each status in
// turn, a second apart from t0.
func (f *fixture) logRequests(org, keyID string, n int, statuses ...int) {
	f.t.Helper()
	var recs []store.RequestRecord
	for i := range n {
		recs = append(recs, store.RequestRecord{ID: fmt.Sprintf("req_%s_%s_%d", org, keyID, i), OrgID: org, KeyID: keyID,
			Method: "GET", Path: "/v1/projects", Route: "/v1/projects", Status: statuses[i%len(statuses)],
			Duration: time.Millisecond, CreatedAt: f.clock.Now().Add(time.Duration(i) * time.Second)})
	}
	if err := f.st.AppendRequests(f.t.Context(), recs); err != nil {
		f.t.Fatal(err)
	}
}

// statusCells returns the status column of a requests page.
var statusCell = regexp.MustCompile(`<td class="num">(\d{3})</td>`)

func statuses(body string) []string {
	var out []string
	for _, m := range statusCell.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestRequestsFilters(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	_, k1 := f.mint("org_a", "one")
	_, k2 := f.mint("org_a", "two")
	f.logRequests("org_a", k1.ID, 3, 200, 404, 503)
	f.logRequests("org_a", k2.ID, 2, 201)
	f.logRequests("org_b", "key_b", 4, 200)
	f.clock.Set(t0.Add(time.Hour))

	body := f.get(adminA, "/requests").Body.String()
	is.Equal(len(statuses(body)), 5) // the organization's requests, not B's
	is.True(strings.Contains(body, `<label for="f-status">Status</label>`))
	is.True(strings.Contains(body, `<label for="f-key">Key</label>`))
	for class, want := range map[string][]string{"2xx": {"201", "201", "200"}, "4xx": {"404"}, "5xx": {"503"}} {
		got := statuses(f.get(adminA, "/requests?status="+class).Body.String())
		is.Equal(len(got), len(want)) // the class's requests only
		for _, s := range got {
			is.Equal(s[0], class[0])
		}
	}
	is.Equal(len(statuses(f.get(adminA, "/requests?key="+k2.ID).Body.String())), 2)               // one key's
	is.Equal(len(statuses(f.get(adminA, "/requests?key="+k1.ID+"&status=2xx").Body.String())), 1) // both filters
	is.Equal(f.get(adminA, "/requests?status=3xx").Code, http.StatusBadRequest)                   // not a choice
	is.Equal(f.get(adminB, "/requests?key="+k1.ID).Code, http.StatusNotFound)                     // another organization's key
	is.True(strings.Contains(f.get(adminA, "/requests?status=4xx").Body.String(), `<option value="4xx" selected>`))
}

func TestRequestsPaged(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	_, k := f.mint("org_a", "busy")
	f.logRequests("org_a", k.ID, 60, 200, 404)
	f.clock.Set(t0.Add(time.Hour))
	total := 0
	for page := 1; page <= 4; page++ {
		total += len(statuses(f.get(adminA, fmt.Sprintf("/requests?page=%d", page)).Body.String()))
	}
	is.Equal(total, 60) // every request once over the pages
	body := f.get(adminA, "/requests?status=4xx").Body.String()
	is.True(strings.Contains(body, "Page 1 of 2 (30 in all)"))
	is.True(strings.Contains(body, `href="/requests?page=2&amp;status=4xx" rel="next"`)) // the filter kept
}

func TestSandboxRequestsApart(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	_, live := f.mint("org_a", "live")
	_, sb, err := f.keys.MintSandbox(t.Context(), "org_a", "sandbox", nil)
	is.NoErr(err)
	f.logRequests("org_a", live.ID, 2, 200)
	f.logRequests(auth.SandboxOrgID("org_a"), sb.ID, 3, 200)
	f.clock.Set(t0.Add(time.Hour))
	is.Equal(len(statuses(f.get(adminA, "/requests").Body.String())), 2)         // live only
	is.Equal(len(statuses(f.get(adminA, "/sandbox/requests").Body.String())), 3) // sandbox only
	is.Equal(f.get(adminA, "/sandbox/requests?key="+live.ID).Code, http.StatusNotFound)
}

func TestUsage(t *testing.T) {
	is := is.New(t)
	f := newFixture(t)
	_, k := f.mint("org_a", "one")
	_, k2 := f.mint("org_a", "two")
	f.logRequests("org_a", k.ID, 5, 200)
	f.logRequests("org_a", k2.ID, 2, 500)
	f.clock.Set(t0.Add(2 * 24 * time.Hour)) // two days later
	f.logRequests("org_a", k.ID, 1, 200)

	body := f.get(adminA, "/usage").Body.String()
	is.True(strings.Contains(body, "<dd>starter</dd>"))                             // the plan
	is.True(strings.Contains(body, "60 requests per minute"))                       // its limit
	is.True(regexp.MustCompile(`<dd>60 requests in this minute`).MatchString(body)) // what remains
	chart := regexp.MustCompile(`<svg role="img" aria-labelledby="chart-title"[^>]*>\s*<title id="chart-title">([^<]*)</title>`).FindStringSubmatch(body)
	is.True(chart != nil)
	is.True(strings.Contains(chart[1], "Requests per day")) // the chart's accessible name
	rows := regexp.MustCompile(`<tr><th scope="row">([^<]+)</th><td class="num">(\d+)</td></tr>`).FindAllStringSubmatch(body, -1)
	is.Equal(len(rows), 7) // a row per day, today last
	is.Equal(rows[6][1], "Wed 4 Mar")
	is.Equal(rows[6][2], "1")
	is.Equal(rows[4][1], "Mon 2 Mar")
	is.Equal(rows[4][2], "7") // every key's requests of the day
	is.True(strings.Contains(chart[1], "Mon 2 Mar: 7"))
	is.True(strings.Contains(f.get(adminB, "/usage").Body.String(), "<dd>growth</dd>"))
}
