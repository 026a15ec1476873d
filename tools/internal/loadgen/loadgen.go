package loadgen

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Run has clients goroutines send requests on client for d, or until ctx
// ends, each with one request in flight at a time: next makes client c's
// next request, and got hears of its answer (the body read to the end and
// closed) or its transport error, with the time it took. An error from
// next or got stops every client and is what Run returns; so is ctx's
// cause when it ends otherwise than cancelled. Each client sends at
// least one request; once d is up none sends another, and the requests in
// flight finish and are reported: a rate is what completed in the time
// Run returns, until the last of them, so that a short run on a slow
// server still counts its first answers. A request that fails once ctx ends goes unreported.
func Run(ctx context.Context, client *http.Client, clients int, d time.Duration,
	next func(c int) (*http.Request, error),
	got func(c int, resp *http.Response, took time.Duration, err error) error) (time.Duration, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var up atomic.Bool
	timer := time.AfterFunc(d, func() { up.Store(true) })
	defer timer.Stop()
	var wg sync.WaitGroup
	start := time.Now()
	for c := range clients {
		wg.Go(func() {
			for ctx.Err() == nil {
				req, err := next(c)
				if err != nil {
					cancel(err)
					return
				}
				t0 := time.Now()
				resp, err := client.Do(req.WithContext(ctx))
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				if err != nil && ctx.Err() != nil {
					return
				}
				if err := got(c, resp, time.Since(t0), err); err != nil {
					cancel(err)
					return
				}
				if up.Load() {
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := context.Cause(ctx); !errors.Is(err, context.Canceled) {
		return elapsed, err
	}
	return elapsed, nil
}

// Get is a GET request of url with key as its bearer token.
func Get(url, key string) (*http.Request, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err == nil {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return req, err
}
