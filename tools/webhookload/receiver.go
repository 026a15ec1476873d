package main

import (
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/clientstatus/clientstatus/statusclient"
)

// receiver is the loopback receiver of the deliveries: it verifies each
// with statusclient.VerifyWebhook (the client's side), counts the
// deliveries of each event to each endpoint (by path), and notes when each
// item's first delivery arrived. It can be down: answering 503, or
// refusing connections (its listener closed, then opened again on the
// same port).
type receiver struct {
	addr string
	h    http.Handler

	mu      sync.Mutex
	srv     *http.Server
	secrets map[string]string    // path: the endpoint's secret
	got     map[string]int       // path and event id: deliveries
	arrived map[string]time.Time // item id: its first delivery
	last    time.Time
	answer  int           // 0: up; else the status answered while down
	delay   time.Duration // before answering: attempts stay in flight
	down    int           // attempts answered while down
	bad     int           // requests that did not verify
	aborted int           // deliveries whose sender left before the answer
}

func newReceiver() (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rc := &receiver{addr: ln.Addr().String(), secrets: map[string]string{}, got: map[string]int{}, arrived: map[string]time.Time{}}
	rc.h = http.HandlerFunc(rc.serve)
	rc.srv = &http.Server{Handler: rc.h, ReadHeaderTimeout: 5 * time.Second}
	go rc.srv.Serve(ln)
	return rc, nil
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	now := time.Now()
	rc.mu.Lock()
	answer, delay, secret := rc.answer, rc.delay, rc.secrets[r.URL.Path]
	if answer != 0 {
		rc.down++
	}
	rc.mu.Unlock()
	if answer != 0 {
		w.WriteHeader(answer)
		return
	}
	ev, verr := statusclient.VerifyWebhook(secret, r.Header, body, now)
	if err != nil || verr != nil {
		rc.mu.Lock()
		rc.bad++
		rc.mu.Unlock()
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	time.Sleep(delay)
	rc.mu.Lock()
	if r.Context().Err() != nil {
		// The sender is gone (a replica killed): it never hears the
		// answer, so the receiver, as a careful one does, drops what it
		// has not acknowledged.
		rc.aborted++
		rc.mu.Unlock()
		return
	}
	rc.got[r.URL.Path+" "+ev.ID]++
	if _, ok := rc.arrived[ev.Data.ID]; !ok {
		rc.arrived[ev.Data.ID] = now
	}
	rc.last = now
	rc.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// counts returns the distinct deliveries (event and endpoint), the
// duplicates among all of them, and the requests that did not verify.
func (rc *receiver) counts() (distinct, dups, bad int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, n := range rc.got {
		dups += n - 1
	}
	return len(rc.got), dups, rc.bad
}

// setAnswer makes the receiver answer status to every delivery (0: up).
func (rc *receiver) setAnswer(status int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.answer = status
}

// refuse closes the listener: connections are refused until listen.
func (rc *receiver) refuse() error {
	rc.mu.Lock()
	srv := rc.srv
	rc.mu.Unlock()
	return srv.Close()
}

// listen opens the listener again, on the same address.
func (rc *receiver) listen() error {
	ln, err := net.Listen("tcp", rc.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: rc.h, ReadHeaderTimeout: 5 * time.Second}
	rc.mu.Lock()
	rc.srv = srv
	rc.mu.Unlock()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			panic(err)
		}
	}()
	return nil
}

func (rc *receiver) close() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.srv.Close()
}
