package otelstatus_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/matryer/is"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/otelstatus"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/store"
)

// downLog is a request log whose store is down: it refuses every batch.
type downLog struct{ *memstore.Store }

func (downLog) AppendRequests(context.Context, []store.RequestRecord) error {
	return fmt.Errorf("test: the database is down: %w", store.ErrUnavailable)
}

// TestObserveRecorder: a portal sees the request-log records a database
// outage loses, and those a full buffer or a closed recorder drops, as
// counters.
func TestObserveRecorder(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	api := apitest.New(t)
	api.Org("org_a", store.PlanGrowth)
	key := api.Mint("k", "org_a")
	rec := statusapi.NewRequestRecorder(downLog{api.Store},
		statusapi.WithRecorderBuffer(2),
		statusapi.WithRecorderFlushInterval(time.Hour), // written by the test's Flush only
		statusapi.WithRecorderLogger(slog.New(slog.DiscardHandler)))
	h := api.NewHandler(statusapi.WithRequestLog(rec))
	reader := sdkmetric.NewManualReader()
	reg := otelstatus.ObserveRecorder(rec, otelstatus.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))))
	get := func() {
		is.Equal(api.Serve(h, apitest.NewRequest("GET", "/v1/projects", key)).Code, 200)
	}
	counts := func() map[string]int64 {
		var rm metricdata.ResourceMetrics
		is.NoErr(reader.Collect(ctx, &rm))
		got := map[string]int64{}
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				sum := m.Data.(metricdata.Sum[int64])
				is.True(sum.IsMonotonic) // a counter
				got[m.Name] = sum.DataPoints[0].Value
			}
		}
		return got
	}

	is.Equal(counts(), map[string]int64{"clientstatus.request_log.dropped": 0, "clientstatus.request_log.lost": 0})
	get()
	get()
	get() // the buffer (2) is full: dropped
	is.True(errors.Is(rec.Flush(ctx), store.ErrUnavailable))
	is.Equal(counts(), map[string]int64{"clientstatus.request_log.dropped": 1, "clientstatus.request_log.lost": 2}) // the two buffered, refused by the store
	is.NoErr(rec.Close(ctx))
	get() // after Close: dropped
	is.Equal(counts(), map[string]int64{"clientstatus.request_log.dropped": 2, "clientstatus.request_log.lost": 2})
	is.Equal(rec.Lost(), int64(2))

	is.NoErr(reg.Unregister())
	is.Equal(counts(), map[string]int64{}) // no longer observed
}

func TestObserveRecorderNeedsARecorder(t *testing.T) {
	is := is.New(t)
	defer func() {
		is.Equal(recover(), "otelstatus: ObserveRecorder needs a *statusapi.RequestRecorder")
	}()
	otelstatus.ObserveRecorder(nil)
}
