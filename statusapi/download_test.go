package statusapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// link asks for the download link of a deliverable with key "a" and
// returns its URL and expiry.
func (a *testAPI) link(id string) (*url.URL, string) {
	a.t.Helper()
	return a.downloadLink("/v1/deliverables/" + id + "/download")
}

// downloadLink asks a download route (a deliverable's, an attachment's)
// for its link with key "a" and returns the link's URL and expiry.
func (a *testAPI) downloadLink(route string) (*url.URL, string) {
	a.t.Helper()
	is := is.New(a.t)
	res := a.do("GET", route, "a")
	is.Equal(res.Code, 200) // download link
	var body struct {
		Data map[string]string `json:"data"`
	}
	is.NoErr(json.Unmarshal(res.Body.Bytes(), &body))
	is.Equal(len(body.Data), 2) // url and expiresAt only
	u, err := url.Parse(body.Data["url"])
	is.NoErr(err) // the link is a URL
	return u, body.Data["expiresAt"]
}

// fetch GETs a link's path and query, without a key.
func (a *testAPI) fetch(method string, u *url.URL, headers ...string) *httptest.ResponseRecorder {
	a.t.Helper()
	return a.do(method, u.RequestURI(), "", headers...)
}

func TestDownloadLink(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	u, expiresAt := api.link("d1")
	is.Equal(u.Scheme+u.Host, "")                                     // without a public URL: root-relative
	is.Equal(u.Path, "/v1/deliverables/d1/file")                      // the file route
	is.Equal(expiresAt, now.Add(15*time.Minute).Format(time.RFC3339)) // 15 minutes ahead
	q := u.Query()
	is.Equal(len(q), 3)
	is.Equal(q.Get("org"), "org_a")
	is.Equal(q.Get("expires"), strconv.FormatInt(now.Add(15*time.Minute).Unix(), 10))
	is.True(len(q.Get("signature")) == 43) // unpadded base64url of 32 bytes

	t.Run("configured TTL, expiry in whole seconds", func(t *testing.T) {
		is := is.New(t)
		api := newTestAPI(t, statusapi.WithLinkTTL(5*time.Minute))
		api.clock.Set(now.Add(700 * time.Millisecond))
		_, expiresAt := api.link("d1")
		is.Equal(expiresAt, "2026-03-01T10:05:00Z") // truncated to the second
	})
	t.Run("public URL", func(t *testing.T) {
		is := is.New(t)
		api := newTestAPI(t, statusapi.WithPublicURL("https://portal.example.com/api/"))
		u, _ := api.link("d1")
		is.True(strings.HasPrefix(u.String(), "https://portal.example.com/api/v1/deliverables/d1/file?")) // trailing slash dropped
	})
	t.Run("TLS request without public URL", func(t *testing.T) {
		is := is.New(t)
		req := api.Request("GET", "https://secure.example.com/v1/deliverables/d1/download", "a")
		res := api.serve(req)
		is.Equal(res.Code, 200)
		is.True(strings.Contains(res.Body.String(), `"url":"/v1/deliverables/d1/file?`)) // neither the scheme nor the host of the request
	})
}

func TestDownloadFile(t *testing.T) {
	api := newTestAPI(t)
	u, _ := api.link("d1")

	t.Run("GET", func(t *testing.T) {
		is := is.New(t)
		res := api.fetch("GET", u)
		is.Equal(res.Code, 200)
		is.Equal(res.Body.String(), fileContent) // the file's bytes
		is.Equal(res.Header().Get("Content-Type"), "application/pdf")
		is.Equal(res.Header().Get("Content-Disposition"), `attachment; filename="homepage final.pdf"`)
		is.Equal(res.Header().Get("Content-Length"), strconv.Itoa(len(fileContent)))
		is.Equal(res.Header().Get("X-Content-Type-Options"), "nosniff")
		is.Equal(res.Header().Get("Cache-Control"), "no-store")
		is.Equal(res.Header().Get("X-RateLimit-Limit"), "") // no key, no rate limit
	})
	t.Run("HEAD", func(t *testing.T) {
		is := is.New(t)
		res := api.fetch("HEAD", u)
		is.Equal(res.Code, 200)
		is.Equal(res.Header().Get("Content-Length"), strconv.Itoa(len(fileContent)))
	})
	t.Run("range", func(t *testing.T) {
		is := is.New(t)
		res := api.fetch("GET", u, "Range", "bytes=4-14")
		is.Equal(res.Code, 206)
		is.Equal(res.Body.String(), fileContent[4:15])
		is.Equal(res.Header().Get("Content-Range"), "bytes 4-14/"+strconv.Itoa(len(fileContent)))
	})
	t.Run("several ranges", func(t *testing.T) {
		is := is.New(t)
		res := api.fetch("GET", u, "Range", "bytes=0-1,3-4")
		is.Equal(res.Code, 206)
		is.Equal(res.Header().Get("Content-Range"), "") // each part has its own
		mediaType, params, err := mime.ParseMediaType(res.Header().Get("Content-Type"))
		is.NoErr(err)
		is.Equal(mediaType, "multipart/byteranges")
		parts := multipart.NewReader(res.Body, params["boundary"])
		for _, want := range []struct{ contentRange, body string }{
			{"bytes 0-1/" + strconv.Itoa(len(fileContent)), fileContent[0:2]},
			{"bytes 3-4/" + strconv.Itoa(len(fileContent)), fileContent[3:5]},
		} {
			part, err := parts.NextPart()
			is.NoErr(err)
			is.Equal(part.Header.Get("Content-Type"), "application/pdf") // the file's own type
			is.Equal(part.Header.Get("Content-Range"), want.contentRange)
			body, err := io.ReadAll(part)
			is.NoErr(err)
			is.Equal(string(body), want.body)
		}
		_, err = parts.NextPart()
		is.Equal(err, io.EOF) // two ranges, two parts
	})
	t.Run("range past the end", func(t *testing.T) {
		is := is.New(t)
		res := api.fetch("GET", u, "Range", "bytes=1000-2000")
		is.Equal(res.Code, 416)
		is.Equal(res.Header().Get("Content-Range"), "bytes */"+strconv.Itoa(len(fileContent)))
	})
	t.Run("failed precondition", func(t *testing.T) {
		is := is.New(t)
		res := api.fetch("GET", u, "If-Match", `"some-other-version"`)
		is.Equal(res.Code, 412)
		is.Equal(res.Body.Len(), 0) // a 412 has no body
	})
	t.Run("valid until expiresAt", func(t *testing.T) {
		is := is.New(t)
		api.clock.Set(now.Add(15 * time.Minute))
		defer api.clock.Set(now)
		is.Equal(api.fetch("GET", u).Code, 200) // at expiresAt, still valid
	})
	t.Run("not rate limited", func(t *testing.T) {
		is := is.New(t)
		for i := 0; i < 70; i++ {
			is.Equal(api.fetch("GET", u).Code, 200) // more than the starter budget
		}
	})
}

func TestDownloadRefused(t *testing.T) {
	api := newTestAPI(t)
	u, _ := api.link("d1")
	other := newTestAPI(t, statusapi.WithSigningKey([]byte("another key, another deployment!")))
	foreign, _ := other.link("d1")
	q := u.Query()
	edit := func(f func(q url.Values, path string) (url.Values, string)) string {
		q2 := url.Values{}
		for k, v := range q {
			q2[k] = append([]string(nil), v...)
		}
		q2, path := f(q2, u.Path)
		return path + "?" + q2.Encode()
	}
	exp, _ := strconv.ParseInt(q.Get("expires"), 10, 64)
	sig := q.Get("signature")
	for _, tc := range []struct {
		name, target string
	}{
		{"other deliverable", strings.Replace(u.RequestURI(), "/d1/", "/d3/", 1)},
		{"other org", edit(func(q url.Values, p string) (url.Values, string) { q.Set("org", "org_b"); return q, p })},
		{"later expiry", edit(func(q url.Values, p string) (url.Values, string) {
			q.Set("expires", strconv.FormatInt(exp+3600, 10))
			return q, p
		})},
		{"expiry spelled otherwise", edit(func(q url.Values, p string) (url.Values, string) { q.Set("expires", "0"+q.Get("expires")); return q, p })},
		{"changed signature", edit(func(q url.Values, p string) (url.Values, string) {
			q.Set("signature", flip(sig[0])+sig[1:])
			return q, p
		})},
		{"padded signature", edit(func(q url.Values, p string) (url.Values, string) { q.Set("signature", sig+"="); return q, p })},
		{"empty signature", edit(func(q url.Values, p string) (url.Values, string) { q.Set("signature", ""); return q, p })},
		{"no signature", edit(func(q url.Values, p string) (url.Values, string) { q.Del("signature"); return q, p })},
		{"no org", edit(func(q url.Values, p string) (url.Values, string) { q.Del("org"); return q, p })},
		{"no expires", edit(func(q url.Values, p string) (url.Values, string) { q.Del("expires"); return q, p })},
		{"extra parameter", edit(func(q url.Values, p string) (url.Values, string) { q.Set("x", "1"); return q, p })},
		{"repeated parameter", edit(func(q url.Values, p string) (url.Values, string) { q.Add("org", "org_a"); return q, p })},
		{"no query", u.Path},
		{"malformed query", u.RequestURI() + "&%zz"},
		{"another deployment's key", foreign.RequestURI()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			res := api.do("GET", tc.target, "")
			is.Equal(res.Code, 403)
			is.Equal(errorOf(t, res).Error.Code, "INVALID_SIGNATURE")
		})
	}
	t.Run("expired", func(t *testing.T) {
		is := is.New(t)
		api.clock.Set(now.Add(15*time.Minute + time.Second))
		defer api.clock.Set(now)
		res := api.fetch("GET", u)
		is.Equal(res.Code, 403)
		is.Equal(errorOf(t, res).Error.Code, "LINK_EXPIRED")
		res = api.do("GET", edit(func(q url.Values, p string) (url.Values, string) {
			q.Set("expires", strconv.FormatInt(exp+3600, 10))
			return q, p
		}), "")
		is.Equal(errorOf(t, res).Error.Code, "INVALID_SIGNATURE") // a changed expiry fails the signature first
	})
}

func TestDownloadNoFile(t *testing.T) {
	api := newTestAPI(t)
	const noFile = "this deliverable has no file attached"
	t.Run("no file attached: download", func(t *testing.T) {
		is := is.New(t)
		res := api.do("GET", "/v1/deliverables/d2/download", "a")
		is.Equal(res.Code, 409)
		e := errorOf(t, res)
		is.Equal(e.Error.Code, "FILE_NOT_AVAILABLE")
		is.Equal(e.Error.Message, noFile)
	})
	t.Run("file missing from the source: file", func(t *testing.T) {
		is := is.New(t)
		u, _ := api.link("d3")
		res := api.fetch("GET", u, "X-Request-Id", "missing-1")
		is.Equal(res.Code, 409)
		e := errorOf(t, res)
		is.Equal(e.Error.Code, "FILE_NOT_AVAILABLE")                   // the contract's code
		is.True(e.Error.Message != noFile)                             // but not "no file attached": one is
		is.True(strings.Contains(e.Error.Message, "is not available")) // it is not available
		var line string
		for _, l := range strings.Split(api.logs.String(), "\n") {
			if strings.Contains(l, "request_id=missing-1") {
				line = l
			}
		}
		is.True(strings.Contains(line, "level=ERROR"))               // the operator must mend the data
		is.True(strings.Contains(line, "deliverable_id=d3"))         // which deliverable
		is.True(strings.Contains(line, "p2/missing.png"))            // and which file
		is.True(!strings.Contains(line, u.Query().Get("signature"))) // never the signature
		is.True(!strings.Contains(api.logs.String(), "signature="))  // nor the query
	})
	t.Run("file detached after the link: file", func(t *testing.T) {
		is := is.New(t)
		u, _ := api.link("d1")
		d, err := api.store.GetDeliverable(context.Background(), "org_a", "d1")
		is.NoErr(err)
		d.FileKey, d.FileName, d.ContentType, d.SizeBytes = "", nil, nil, nil
		is.NoErr(api.store.PutDeliverable(context.Background(), d))
		res := api.fetch("GET", u)
		is.Equal(res.Code, 409)
		is.Equal(errorOf(t, res).Error.Code, "FILE_NOT_AVAILABLE")
	})
}

func TestDownloadDeliverableGone(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	u, _ := api.link("d1")
	// Another replica, with the same signing key, whose store no longer
	// has d1.
	gone := newTestAPIWith(t, setup{wrap: func(st store.Store) store.Store { return goneStore{st} }})
	res := gone.fetch("GET", u)
	is.Equal(res.Code, 404)
	is.Equal(errorOf(t, res).Error.Code, "NOT_FOUND")
}

type goneStore struct{ store.Store }

func (goneStore) GetDeliverable(context.Context, string, string) (store.Deliverable, error) {
	return store.Deliverable{}, store.ErrNotFound
}

func TestDownloadOnAnotherReplica(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t)
	u, _ := api.link("d1")
	replica := newTestAPI(t) // same signing key, its own store with the same data
	res := replica.fetch("GET", u)
	is.Equal(res.Code, 200) // any replica verifies the link
	is.Equal(res.Body.String(), fileContent)
}

func TestDownloadWithoutSigningKey(t *testing.T) {
	is := is.New(t)
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	st := memstore.New()
	is.NoErr(st.PutOrganization(context.Background(), store.Organization{ID: "org_a", Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}))
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st))
	defer keys.Close()
	key, _, err := keys.Mint(context.Background(), "org_a", "k", nil)
	is.NoErr(err)
	is.NoErr(st.PutProject(context.Background(), store.Project{ID: "p", OrgID: "org_a", Name: "p", Status: store.ProjectPlanned, UpdatedAt: now}))
	is.NoErr(st.PutDeliverable(context.Background(), store.Deliverable{ID: "d", OrgID: "org_a", ProjectID: "p", Name: "d", Status: store.DeliverablePending, FileKey: "f", CreatedAt: now, UpdatedAt: now}))
	src := files.NewMemory()
	src.Put("f", []byte("x"))
	h := statusapi.New(st, keys, ratelimit.NewMemory(), statusapi.WithLogger(logger), statusapi.WithFiles(src))
	is.True(strings.Contains(logs.String(), "will not verify on other replicas")) // warned once, at New

	req := apitest.NewRequest("GET", "/v1/deliverables/d/download", key)
	res := serveWith(t, h, req)
	is.Equal(res.Code, 200)
	var body struct{ Data struct{ URL string } }
	is.NoErr(json.Unmarshal(res.Body.Bytes(), &body))
	res = serveWith(t, h, httptest.NewRequest("GET", body.Data.URL, nil))
	is.Equal(res.Code, 200) // the same process verifies its links
	is.Equal(res.Body.String(), "x")
	// Without a content type or file name: safe defaults.
	is.Equal(res.Header().Get("Content-Type"), "application/octet-stream")
	is.Equal(res.Header().Get("Content-Disposition"), `attachment; filename=download`)
}

func TestDownloadFileNames(t *testing.T) {
	for _, tc := range []struct{ name, contentType, wantType, wantDisposition string }{
		{"report.pdf", "application/pdf", "application/pdf", "attachment; filename=report.pdf"},
		{"résumé 2026.pdf", "application/pdf", "application/pdf", "attachment; filename*=utf-8''r%C3%A9sum%C3%A9%202026.pdf"},
		{`a"b\c.txt`, "text/plain; charset=utf-8", "text/plain; charset=utf-8", `attachment; filename="a\"b\\c.txt"`},
		{"x.bin", "not a media type", "application/octet-stream", "attachment; filename=x.bin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			api := newTestAPI(t)
			d, err := api.store.GetDeliverable(context.Background(), "org_a", "d1")
			is.NoErr(err)
			d.FileName, d.ContentType = &tc.name, &tc.contentType
			is.NoErr(api.store.PutDeliverable(context.Background(), d))
			u, _ := api.link("d1")
			res := api.fetch("GET", u)
			is.Equal(res.Code, 200)
			is.Equal(res.Header().Get("Content-Type"), tc.wantType)
			is.Equal(res.Header().Get("Content-Disposition"), tc.wantDisposition) // quoted or encoded safely
		})
	}
}

func TestDownloadFromAStreamingSource(t *testing.T) {
	is := is.New(t)
	api := newTestAPI(t, statusapi.WithFiles(streamSource{}))
	u, _ := api.link("d1")
	res := api.fetch("GET", u)
	is.Equal(res.Code, 200)
	is.Equal(res.Body.String(), "streamed") // served with io.Copy
	is.Equal(res.Header().Get("Content-Length"), "8")
	res = api.fetch("HEAD", u)
	is.Equal(res.Code, 200)
	is.Equal(res.Header().Get("Content-Length"), "8")
}

// streamSource serves files that cannot seek.
type streamSource struct{}

func (streamSource) Open(context.Context, string) (fs.File, error) {
	return streamFile{strings.NewReader("streamed")}, nil
}

type streamFile struct{ r io.Reader }

func (f streamFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (streamFile) Close() error                 { return nil }
func (streamFile) Stat() (fs.FileInfo, error)   { return streamInfo{}, nil }

type streamInfo struct{ fs.FileInfo }

func (streamInfo) Size() int64        { return 8 }
func (streamInfo) ModTime() time.Time { return time.Time{} }

func TestDownloadSizeMismatch(t *testing.T) {
	for _, tc := range []struct {
		name   string
		listed *int64
		warned bool
	}{
		{"listed size is the file's", ptr(int64(len(fileContent))), false},
		{"listed size is smaller", ptr(int64(10)), true},
		{"listed size is larger", ptr(int64(1 << 20)), true},
		{"no size listed", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			api := newTestAPI(t)
			d, err := api.store.GetDeliverable(context.Background(), "org_a", "d1")
			is.NoErr(err)
			d.SizeBytes = tc.listed
			is.NoErr(api.store.PutDeliverable(context.Background(), d))
			u, _ := api.link("d1")
			res := api.fetch("GET", u, "X-Request-Id", "size-1")
			is.Equal(res.Code, 200)                  // served all the same
			is.Equal(res.Body.String(), fileContent) // the file's real bytes
			is.Equal(res.Header().Get("Content-Length"), strconv.Itoa(len(fileContent)))
			logs := api.logs.String()
			is.Equal(strings.Contains(logs, "sizeBytes differs"), tc.warned) // a mismatch is logged
			if tc.warned {
				is.True(strings.Contains(logs, "level=WARN"))        // as a warning
				is.True(strings.Contains(logs, "deliverable_id=d1")) // naming the deliverable
				is.True(strings.Contains(logs, "request_id=size-1")) // and the request
				is.True(strings.Contains(logs, fmt.Sprintf("size_bytes=%d file_size=%d", *tc.listed, len(fileContent))))
			}
		})
	}
}
