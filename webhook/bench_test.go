package webhook_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/internal/test/eventfake"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/webhook"
)

// benchSetup runs one dispatcher (one replica) on a memory store and a
// local receiver that calls got for each delivery.
func benchSetup(b *testing.B, got func()) (*eventfake.Events, func()) {
	st := memstore.New()
	if err := st.PutOrganization(context.Background(), store.Organization{ID: "org_a", Name: "A", Plan: store.PlanStarter}); err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got()
		w.WriteHeader(204)
	}))
	ev := eventfake.New()
	opts := []webhook.Option{webhook.WithAllowLocal(true)}
	if _, _, err := webhook.NewEndpoints(st, ev, testKey, opts...).Create(context.Background(), "org_a", webhook.Settings{URL: srv.URL}); err != nil {
		b.Fatal(err)
	}
	d := webhook.NewDispatcher(st, ev, testKey, opts...)
	d.Start(context.Background())
	return ev, func() {
		d.Stop(context.Background())
		srv.Close()
	}
}

// BenchmarkDeliveries measures deliveries a second from one replica to a
// local receiver: b.N events queued at once.
func BenchmarkDeliveries(b *testing.B) {
	var n atomic.Int64
	done := make(chan struct{})
	want := int64(b.N)
	ev, stop := benchSetup(b, func() {
		if n.Add(1) == want {
			close(done)
		}
	})
	defer stop()
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		ev.Add("org_a", store.Event{Type: "invoice.paid", Kind: store.KindInvoice, ItemID: string(rune('a' + i%26))})
	}
	<-done
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "deliveries/s")
}

// BenchmarkLatency measures the time from an event's commit (its Add,
// which wakes the dispatcher as WatchEvents does) to its delivery, one
// event at a time, and reports the median and the maximum.
func BenchmarkLatency(b *testing.B) {
	got := make(chan time.Time, 1)
	ev, stop := benchSetup(b, func() { got <- time.Now() })
	defer stop()
	var lat []time.Duration
	for range b.N {
		start := time.Now()
		ev.Add("org_a", store.Event{Type: "invoice.paid", Kind: store.KindInvoice, ItemID: "inv_1"})
		lat = append(lat, (<-got).Sub(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
}
