package webhook_test

import (
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/webhook"
)

// TestSignVector checks Sign against the test vector published with the
// Standard Webhooks Go library (libraries/go/webhook_test.go,
// TestWebhookSign).
func TestSignVector(t *testing.T) {
	is := is.New(t)
	sig, err := webhook.Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
		time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	is.NoErr(err)
	is.Equal(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=") // the library's expected signature
}

func TestSecrets(t *testing.T) {
	is := is.New(t)
	s := webhook.NewSecret()
	is.True(strings.HasPrefix(s, "whsec_"))
	is.True(webhook.ValidSecret(s))
	is.True(s != webhook.NewSecret())                                 // random
	is.True(!webhook.ValidSecret("whsec_not base64"))                 // not base64
	is.True(!webhook.ValidSecret("whsec_c2hvcnQ="))                   // too short a key
	is.True(!webhook.ValidSecret("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")) // the prefix is required of a portal
	_, err := webhook.Sign("whsec_%%%", "msg", time.Unix(0, 0), nil)
	is.True(err != nil) // a bad secret signs nothing
}
