package statusclient_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/webhook"
)

func TestVerifyWebhook(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	at := time.Unix(1614265330, 0)
	body := []byte(`{"id":"evt_1","type":"thread.resolved","createdAt":"2021-02-25T15:02:10Z","data":{"object":"thread","id":"t1","projectId":null,"previousStatus":"open"}}`)
	sig, err := webhook.Sign(secret, "evt_1", at, body)
	if err != nil {
		t.Fatal(err)
	}
	header := func(id string, ts time.Time, sig string) http.Header {
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", fmt.Sprint(ts.Unix()))
		h.Set("webhook-signature", sig)
		return h
	}
	other := "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="
	for _, tc := range []struct {
		name string
		h    http.Header
		body []byte
		now  time.Time
		ok   bool
	}{
		{"valid", header("evt_1", at, sig), body, at, true},
		{"valid among others (a rotation)", header("evt_1", at, other+" v2,x "+sig), body, at, true},
		{"almost 5 minutes late", header("evt_1", at, sig), body, at.Add(5 * time.Minute), true},
		{"too late: a replay", header("evt_1", at, sig), body, at.Add(5*time.Minute + time.Second), false},
		{"too early", header("evt_1", at, sig), body, at.Add(-5*time.Minute - time.Second), false},
		{"tampered body", header("evt_1", at, sig), append([]byte(" "), body...), at, false},
		{"another id", header("evt_2", at, sig), body, at, false},
		{"another signature", header("evt_1", at, other), body, at, false},
		{"no signature", header("evt_1", at, ""), body, at, false},
		{"not seconds", http.Header{"Webhook-Id": {"evt_1"}, "Webhook-Timestamp": {"soon"}, "Webhook-Signature": {sig}}, body, at, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			e, err := statusclient.VerifyWebhook(secret, tc.h, tc.body, tc.now)
			is.Equal(err == nil, tc.ok)
			if tc.ok {
				is.Equal(e.ID, "evt_1")
				is.Equal(e.Data.ProjectID, (*string)(nil))
				is.Equal(*e.Data.PreviousStatus, "open")
			} else {
				is.True(errors.Is(err, statusclient.ErrWebhookSignature))
			}
		})
	}
}
