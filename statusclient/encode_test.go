package statusclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusclient"
)

// TestEveryOptionIsSent calls every method of *Client that takes an
// options struct (found by reflection, not listed) with every field of it
// set, and checks that each field is sent: one query parameter a field,
// in the contract's form (a time in UTC whole seconds, a list joined with
// commas), and IfNoneMatch as If-None-Match, which the All... iterators
// leave out. A field added without its tag fails it.
func TestEveryOptionIsSent(t *testing.T) {
	var (
		mu  sync.Mutex
		got *http.Request
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r
		mu.Unlock()
		w.WriteHeader(http.StatusNotFound)
	}))
	defer srv.Close()
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.FixedZone("CET", 3600))

	c := reflect.ValueOf(statusclient.New(srv.URL+"/v1", "k"))
	tested := 0
	for i := range c.NumMethod() {
		m, fn := c.Type().Method(i), c.Method(i)
		var args []reflect.Value
		fields, conditional, skip := 0, false, false
		for j := range fn.Type().NumIn() {
			in := fn.Type().In(j)
			if fn.Type().IsVariadic() && j == fn.Type().NumIn()-1 {
				in = in.Elem()
			}
			switch {
			case in == reflect.TypeFor[context.Context]():
				args = append(args, reflect.ValueOf(context.Background()))
			case in.Kind() == reflect.String:
				args = append(args, reflect.ValueOf("x").Convert(in))
			case in.Kind() == reflect.Struct:
				v := reflect.New(in).Elem()
				n, cond := fill(t, m.Name, v, at)
				fields, conditional = fields+n, cond
				args = append(args, v)
			default:
				skip = true // Sync: not a call with options
			}
		}
		if skip || fields == 0 {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			is := is.New(t)
			mu.Lock()
			got = nil
			mu.Unlock()
			out := fn.Call(args)
			if out[0].Kind() == reflect.Func { // an iterator: ask its first page
				stop := reflect.MakeFunc(out[0].Type().In(0), func([]reflect.Value) []reflect.Value {
					return []reflect.Value{reflect.ValueOf(false)}
				})
				out[0].Call([]reflect.Value{stop})
			}
			mu.Lock()
			r := got
			mu.Unlock()
			is.True(r != nil) // a request was sent
			q := r.URL.Query()
			is.Equal(len(q), fields) // one parameter a field
			for _, vs := range q {
				is.Equal(len(vs), 1)                                                               // each parameter once
				is.True(slices.Contains([]string{"x", "1", "2026-03-01T09:00:00Z", "x,y"}, vs[0])) // in the contract's form
			}
			iterator := strings.HasPrefix(m.Name, "All")
			is.Equal(r.Header.Get("If-None-Match") == "x", conditional && !iterator) // IfNoneMatch is sent, but by the iterators
		})
		tested++
	}
	is.New(t).True(tested >= 15) // the methods with options were found
}

// fill sets every field of the options struct v (and of the structs it
// embeds) to a value that is not zero, and returns how many query
// parameters they make and whether it has IfNoneMatch.
func fill(t *testing.T, method string, v reflect.Value, at time.Time) (params int, conditional bool) {
	for i := range v.NumField() {
		f, fv := v.Type().Field(i), v.Field(i)
		switch {
		case f.Name == "IfNoneMatch":
			fv.SetString("x")
			conditional = true
			continue
		case f.Anonymous && f.Type.Kind() == reflect.Struct:
			n, _ := fill(t, method, fv, at)
			params += n
			continue
		case f.Type == reflect.TypeFor[time.Time]():
			fv.Set(reflect.ValueOf(at))
		case f.Type == reflect.TypeFor[[]string]():
			fv.Set(reflect.ValueOf([]string{"x", "y"}))
		case f.Type.Kind() == reflect.String:
			fv.SetString("x")
		case f.Type.Kind() == reflect.Int:
			fv.SetInt(1)
		default:
			t.Fatalf("%s: no value for the option %s of type %s", method, f.Name, f.Type)
		}
		params++
	}
	return params, conditional
}
