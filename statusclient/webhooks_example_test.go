package statusclient_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/webhook"
)

// A receiver of webhooks checks each request with the secret the agency
// showed when it registered the endpoint, then handles the event once
// (deliveries are retried, so the same event id can come again).
func ExampleVerifyWebhook() {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	seen := map[string]bool{}
	receiver := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "unreadable", http.StatusBadRequest)
			return
		}
		e, err := statusclient.VerifyWebhook(secret, r.Header, body, time.Now())
		if err != nil {
			http.Error(w, "not verified", http.StatusUnauthorized)
			return
		}
		if !seen[e.ID] {
			seen[e.ID] = true
			fmt.Println(e.Type, e.Data.Object, e.Data.ID, *e.Data.PreviousStatus)
		}
		w.WriteHeader(http.StatusNoContent) // a 2xx within 15 seconds
	})

	// What a delivery sends (package webhook signs it on the portal's side).
	body := []byte(`{"id":"evt_1","type":"invoice.paid","createdAt":"2026-03-01T09:00:00Z","data":{"object":"invoice","id":"inv_1","projectId":"prj_1","previousStatus":"open"}}`)
	now := time.Now()
	sig, _ := webhook.Sign(secret, "evt_1", now, body)
	for _, signature := range []string{sig, sig, "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="} {
		req := httptest.NewRequest("POST", "/hooks/clientstatus", bytes.NewReader(body))
		req.Header.Set("webhook-id", "evt_1")
		req.Header.Set("webhook-timestamp", fmt.Sprint(now.Unix()))
		req.Header.Set("webhook-signature", signature)
		res := httptest.NewRecorder()
		receiver.ServeHTTP(res, req)
		fmt.Println(res.Code)
	}
	// Output:
	// invoice.paid invoice inv_1 open
	// 204
	// 204
	// 401
}
