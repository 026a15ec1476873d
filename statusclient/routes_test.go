package statusclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/statusclient"
)

// notForTheClient reports whether the server's route pattern is one the
// Client has no method for, by design: the signed file links, which a
// plain GET follows without the API key (DownloadLink), and the API's
// own documentation.
func notForTheClient(pattern string) bool {
	return strings.HasSuffix(pattern, "/file") || pattern == "/v1/openapi.json" ||
		pattern == "/v1/docs" || strings.HasPrefix(pattern, "/v1/docs/")
}

// TestEveryRouteHasAClientMethod calls every exported method of *Client
// (found by reflection, not listed) against a server that records the
// request and answers 404, and matches the paths asked against
// statusapi.Routes with every option: each route of the server (but
// notForTheClient) is asked by some method, and no method asks a path
// that is no route. A new resource's routes fail it until the Client has
// their methods; nothing here names a resource.
func TestEveryRouteHasAClientMethod(t *testing.T) {
	routes := statusapi.Routes(statusapi.WithWebhookEndpoints(memstore.New()),
		statusapi.WithRequestLog(new(statusapi.RequestRecorder)))
	mux := http.NewServeMux()
	for _, p := range routes {
		mux.HandleFunc("GET "+p, func(http.ResponseWriter, *http.Request) {})
	}
	var (
		mu     sync.Mutex
		asked  = map[string][]string{} // route pattern -> the methods that asked it
		method string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pattern := mux.Handler(r)
		mu.Lock()
		asked[strings.TrimPrefix(pattern, "GET ")] = append(asked[strings.TrimPrefix(pattern, "GET ")], method)
		if pattern == "" {
			t.Errorf("%s asks %s, which is no route of the server", method, r.URL.Path)
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":{"code":"NOT_FOUND","message":"recorded","request_id":"r"}}`))
	}))
	defer srv.Close()

	c := reflect.ValueOf(statusclient.New(srv.URL+"/v1", "k"))
	for i := range c.NumMethod() {
		m := c.Type().Method(i)
		mu.Lock()
		method = m.Name
		mu.Unlock()
		_ = callAnyhow(t, m.Name, c.Method(i), "x")
	}
	for _, p := range routes {
		if !notForTheClient(p) && len(asked[p]) == 0 {
			t.Errorf("route %s has no method of *statusclient.Client", p)
		}
	}
	if len(asked) == 0 {
		t.Fatal("no method asked anything: the walk is broken")
	}
}

// callAnyhow calls fn with arguments that make it send a request: a
// context, id for every string, a *Replica, and option structs whose time
// fields are set (DeletionListOptions requires Since). An iterator it
// returns is ranged over until its first value. It returns the error fn
// returned or yielded first.
func callAnyhow(t *testing.T, name string, fn reflect.Value, id string) error {
	t.Helper()
	ft := fn.Type()
	var args []reflect.Value
	for i := range ft.NumIn() {
		in := ft.In(i)
		if ft.IsVariadic() && i == ft.NumIn()-1 {
			break
		}
		args = append(args, argFor(t, name, in, id))
	}
	out := fn.Call(args)
	if len(out) == 0 {
		return nil
	}
	if out[0].Kind() != reflect.Func {
		err, _ := out[len(out)-1].Interface().(error)
		return err
	}
	var err error
	seq := out[0]
	yield := reflect.MakeFunc(seq.Type().In(0), func(vs []reflect.Value) []reflect.Value {
		err, _ = vs[len(vs)-1].Interface().(error)
		return []reflect.Value{reflect.ValueOf(false)}
	})
	seq.Call([]reflect.Value{yield})
	return err
}

func argFor(t *testing.T, name string, typ reflect.Type, id string) reflect.Value {
	t.Helper()
	switch {
	case typ == reflect.TypeFor[context.Context]():
		return reflect.ValueOf(context.Background())
	case typ.Kind() == reflect.String:
		return reflect.ValueOf(id).Convert(typ)
	case typ.Kind() == reflect.Pointer && typ.Elem().Kind() == reflect.Struct:
		return reflect.New(typ.Elem())
	case typ.Kind() == reflect.Struct:
		v := reflect.New(typ).Elem()
		for i := range typ.NumField() {
			if f := v.Field(i); f.Type() == reflect.TypeFor[time.Time]() && f.CanSet() {
				f.Set(reflect.ValueOf(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)))
			}
		}
		return v
	}
	t.Fatalf("%s: no argument of type %s to call it with", name, typ)
	return reflect.Value{}
}
