package statusapi_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusapi"
)

// keyID returns the id of org_a's key named name.
func (a *testAPI) keyID(name string) string {
	a.t.Helper()
	keys, err := a.keys.List(context.Background(), "org_a")
	if err != nil {
		a.t.Fatal(err)
	}
	for _, k := range keys {
		if k.Name == name {
			return k.ID
		}
	}
	a.t.Fatalf("no key named %q", name)
	return ""
}

func TestRefusedKeyLogged(t *testing.T) {
	for _, name := range []string{"revoked", "expired"} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			api := newTestAPI(t)
			id := api.keyID(name)
			lines := func() []string {
				var out []string
				for _, l := range strings.Split(api.logs.String(), "\n") {
					if strings.Contains(l, "key_id=") {
						out = append(out, l)
					}
				}
				return out
			}

			res := api.do("GET", "/v1/projects", name)
			is.Equal(res.Code, 401)
			logged := lines()
			is.Equal(len(logged), 1) // the first refusal is logged at once
			is.True(strings.Contains(logged[0], `level=INFO msg="statusapi: refused a `+name+` API key"`))
			is.True(strings.Contains(logged[0], "key_id="+id))                                   // which key
			is.True(strings.Contains(logged[0], "org_id=org_a"))                                 // whose
			is.True(strings.Contains(logged[0], "request_id="+res.Header().Get("X-Request-Id"))) // which request
			is.True(!strings.Contains(api.logs.String(), api.Key(name)))                         // never the key
			is.True(!strings.Contains(api.logs.String(), api.Key(name)[len(api.Key(name))-12:])) // nor a part of it

			api.do("GET", "/v1/invoices", name)
			api.do("GET", "/v1/projects", name)
			is.Equal(len(lines()), 1) // paced: one line a minute per key
			api.clock.Advance(statusapi.RefusedKeyLogInterval + time.Second)
			api.do("GET", "/v1/projects", name)
			logged = lines()
			is.Equal(len(logged), 2)
			is.True(strings.Contains(logged[1], "refused_requests=3")) // the refusals since the line before

			api.SetKey("nope", "not-a-key-of-ours")
			api.do("GET", "/v1/projects", "nope")
			is.Equal(len(lines()), 2) // an unknown key names no key: not logged
		})
	}
}
