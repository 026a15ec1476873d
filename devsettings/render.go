package devsettings

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

//go:embed assets
var assets embed.FS

// The page's style and script, inlined under the answer's nonce.
var (
	styleCSS = mustRead("assets/style.css")
	copyJS   = mustRead("assets/copy.js")
)

func mustRead(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// pageNames are the templates of assets/, each defining "content".
var pageNames = []string{"error", "keys", "revoke", "roll", "webhooks", "endpoint", "requests", "usage"}

var funcs = template.FuncMap{
	"when": func(t any) string {
		switch t := t.(type) {
		case time.Time:
			if t.IsZero() {
				return "—"
			}
			return t.UTC().Format("2006-01-02 15:04 UTC")
		case *time.Time:
			if t == nil {
				return "—"
			}
			return t.UTC().Format("2006-01-02 15:04 UTC")
		}
		return ""
	},
	"join": strings.Join,
}

func parsePages() map[string]*template.Template {
	layout := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(assets, "assets/layout.html"))
	pages := make(map[string]*template.Template, len(pageNames))
	for _, name := range pageNames {
		pages[name] = template.Must(template.Must(layout.Clone()).ParseFS(assets, "assets/"+name+".html"))
	}
	return pages
}

// view is what a page's template gets.
type view struct {
	*request
	Title string
	// Section is the navigation's current entry: "keys", "webhooks",
	// "requests" or "usage".
	Section string
	Notice  string
	Error   string
	// The pages offered.
	Webhooks, Requests, SandboxOffered bool
	Data                               any
}

// Link returns the path of a page of the request's mode, its segments
// escaped.
func (v view) Link(segments ...string) string {
	var b strings.Builder
	b.WriteString(v.Base + v.Mode)
	for _, s := range segments {
		b.WriteString("/" + url.PathEscape(s))
	}
	return b.String()
}

// SwitchLink returns the section's page in the other mode.
func (v view) SwitchLink() string {
	if v.Sandbox() {
		return v.Base + "/" + v.Section
	}
	return v.Base + sandboxPath + "/" + v.Section
}

// CSS and Script are the page's embedded style and script.
func (view) CSS() template.CSS   { return template.CSS(styleCSS) }
func (view) Script() template.JS { return template.JS(copyJS) }

func (h *handler) view(r *http.Request, section, title string) view {
	return view{request: req(r), Section: section, Title: title, Webhooks: h.cfg.webhooks != nil,
		Requests: h.cfg.requests != nil, SandboxOffered: h.cfg.sandbox != nil, Notice: notices[r.URL.Query().Get("done")]}
}

// notices are the messages a redirect after a change may show, by code:
// a fixed text, never anything the request sent.
var notices = map[string]string{
	"revoked":  "The key was revoked. Requests made with it are refused.",
	"added":    "The endpoint was added. Reveal its secret to verify what it receives.",
	"disabled": "The endpoint was disabled: it gets no deliveries until enabled.",
	"enabled":  "The endpoint was enabled: the next events are delivered to it.",
	"sent":     "A test event was sent. It appears under Deliveries within seconds.",
}

// render writes page with v and status.
func (h *handler) render(w http.ResponseWriter, r *http.Request, status int, page string, v view) {
	var buf bytes.Buffer
	if err := h.pages[page].ExecuteTemplate(&buf, "layout", v); err != nil {
		h.cfg.logger.Error("devsettings: rendering a page", "page", page, "err", err)
		http.Error(w, "Something went wrong.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
}

// fail answers an error page with status and a message.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	v := h.view(r, "", http.StatusText(status))
	v.Notice = ""
	v.Error = msg
	if status == http.StatusUnauthorized {
		v.request = &request{Base: v.Base, Mode: v.Mode, Nonce: v.Nonce} // no account: no navigation
	}
	h.render(w, r, status, "error", v)
}

// seeOther redirects, after a change, to a page of the request's mode
// with a notice code (see notices).
func seeOther(w http.ResponseWriter, r *http.Request, done string, segments ...string) {
	target := view{request: req(r)}.Link(segments...)
	if done != "" {
		target += "?done=" + done
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// pager is a list's paging: links to the pages before and after.
type pager struct {
	Page, Pages, Total int
	Prev, Next         string
}

// pageOf reads the page parameter: 1 when absent, false when it is not
// a whole number from 1.
func pageOf(r *http.Request) (int, bool) {
	s := r.URL.Query().Get("page")
	if s == "" {
		return 1, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 1 && n <= 1_000_000
}

// newPager returns the paging of page of a list of total items, its links
// to path with the query q (its filters) and the page number.
func newPager(path string, q url.Values, page, total int) pager {
	p := pager{Page: page, Total: total, Pages: max(1, (total+pageSize-1)/pageSize)}
	link := func(n int) string {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		v.Set("page", strconv.Itoa(n))
		return path + "?" + v.Encode()
	}
	if page > 1 {
		p.Prev = link(min(page-1, p.Pages))
	}
	if page < p.Pages {
		p.Next = link(page + 1)
	}
	return p
}
