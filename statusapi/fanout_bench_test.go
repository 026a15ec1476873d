package statusapi_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/internal/test/apitest"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/store"
)

// frameCounter is a client of a live stream that keeps nothing: it
// counts the event frames written to it, and signals each flush.
type frameCounter struct {
	header  http.Header
	frames  *atomic.Int64
	flushes *atomic.Int64
	flushed chan struct{}
}

func (w *frameCounter) Header() http.Header { return w.header }
func (w *frameCounter) WriteHeader(int)     {}
func (w *frameCounter) Write(b []byte) (int, error) {
	w.frames.Add(int64(bytes.Count(b, []byte("\nevent: "))))
	return len(b), nil
}

func (w *frameCounter) SetWriteDeadline(time.Time) error { return nil }

func (w *frameCounter) Flush() {
	w.flushes.Add(1)
	select {
	case w.flushed <- struct{}{}:
	default:
	}
}

// BenchmarkFanOut: 20 organizations with n open streams each on one
// handler (memstore.Store); each op writes one event to one organization
// (a project renamed) and waits until its n streams have written it.
// reads/commit is the store reads per write; compare allocs/op across n
// for the cost of a stream per event.
func BenchmarkFanOut(b *testing.B) {
	for _, n := range []int{1, 5} {
		b.Run(fmt.Sprintf("streams=%d", n), func(b *testing.B) {
			ctx := context.Background()
			st := memstore.New()
			counting := &countingEvents{Store: st}
			keys := auth.NewKeys(auth.NewMemoryKeyStore(st))
			b.Cleanup(func() { _ = keys.Close() })
			h := apitest.Handler(counting, keys, nil)
			var frames, flushes atomic.Int64
			flushed := make(chan struct{}, 1)
			const orgs = 20
			for o := range orgs {
				org := fmt.Sprintf("org_%d", o)
				if err := st.PutOrganization(ctx, store.Organization{ID: org, Name: org, Plan: store.PlanEnterprise, RetainerActive: true, APIEnabled: true}); err != nil {
					b.Fatal(err)
				}
				if err := st.PutProject(ctx, store.Project{ID: "p1", OrgID: org, Name: "P", Status: store.ProjectPlanned}); err != nil {
					b.Fatal(err)
				}
				key, _, err := keys.Mint(ctx, org, "bench", nil)
				if err != nil {
					b.Fatal(err)
				}
				for range n {
					req := apitest.NewRequest("GET", "/v1/events", key, "Accept", "text/event-stream")
					sctx, cancel := context.WithCancel(req.Context())
					done := make(chan struct{})
					go func() {
						defer close(done)
						h.ServeHTTP(&frameCounter{header: http.Header{}, frames: &frames, flushes: &flushes, flushed: flushed}, req.WithContext(sctx))
					}()
					b.Cleanup(func() { cancel(); <-done })
				}
			}
			for flushes.Load() < int64(orgs*n) { // the headers: every stream is open
				<-flushed
			}
			// A first event reaches every stream, through its feed.
			for o := range orgs {
				if err := st.PutProject(ctx, store.Project{ID: "p1", OrgID: fmt.Sprintf("org_%d", o), Name: "warm", Status: store.ProjectPlanned}); err != nil {
					b.Fatal(err)
				}
			}
			for frames.Load() < int64(orgs*n) {
				<-flushed
			}
			reads := counting.reads.Load()
			want := frames.Load()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				p := store.Project{ID: "p1", OrgID: fmt.Sprintf("org_%d", i%orgs), Name: fmt.Sprint(i), Status: store.ProjectPlanned}
				if err := st.PutProject(ctx, p); err != nil {
					b.Fatal(err)
				}
				want += int64(n)
				for frames.Load() < want {
					<-flushed
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(counting.reads.Load()-reads)/float64(b.N), "reads/commit")
		})
	}
}
