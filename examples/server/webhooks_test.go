package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
)

func TestWebhookFlags(t *testing.T) {
	is := is.New(t)
	c, err := parseConfig([]string{"-webhook-retries", "1s,2s,4s", "-webhooks-allow-local"}, func(string) string { return "" }, io.Discard)
	is.NoErr(err)
	is.Equal(c.webhookRetries, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second})
	is.True(c.webhookAllowLocal)
	c, err = parseConfig(nil, func(string) string { return "" }, io.Discard)
	is.NoErr(err)
	is.True(c.webhookRetries == nil) // the default schedule
	is.True(!c.webhookAllowLocal)    // off by default
	_, err = parseConfig([]string{"-webhook-retries", "1s,soon"}, func(string) string { return "" }, io.Discard)
	is.True(err != nil) // a bad delay is refused
}

func TestWebhookEndpointsFile(t *testing.T) {
	is := is.New(t)
	const file = `{"organizations": [{"id": "org_a", "name": "A", "plan": "starter", "retainerActive": true, "apiEnabled": true}],
	  "webhookEndpoints": [{"id": "we_1", "orgId": "org_a", "url": "https://hooks.example.com/a", "types": ["invoice.paid"],
	    "scopes": ["invoices:read"], "projectIds": null, "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}]}`
	ds, err := parseData(strings.NewReader(file))
	is.NoErr(err)
	is.Equal(len(ds.webhooks), 1)
	is.Equal(ds.webhooks[0].Settings.URL, "https://hooks.example.com/a")
	is.Equal(len(ds.ignored), 0) // every field is known
	_, err = parseData(strings.NewReader(strings.Replace(file, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "hunter2", 1)))
	is.True(err != nil)                                // a secret that is not whsec_ is refused
	is.True(!strings.Contains(err.Error(), "hunter2")) // and never echoed
}
