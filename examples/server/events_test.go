package main

import (
	"bufio"
	"io"
	"net/http"
	"testing"

	"github.com/matryer/is"
)

// TestStreamEndsOnShutdown: the server stops cleanly, within its grace,
// with a live event stream open (startServer's cleanup fails the test
// otherwise).
func TestStreamEndsOnShutdown(t *testing.T) {
	is := is.New(t)
	var body io.Closer
	t.Cleanup(func() { // after the server's cleanup, which must not wait for the stream
		if body != nil {
			body.Close()
		}
	})
	s := startServer(t, nil)
	req, err := http.NewRequest("GET", s.url+"/v1/events", nil)
	is.NoErr(err)
	req.Header.Set("Authorization", "Bearer demo_ember_enterprise_key")
	req.Header.Set("Accept", "text/event-stream")
	res, err := http.DefaultClient.Do(req)
	is.NoErr(err)
	body = res.Body
	if res.StatusCode == http.StatusNotFound {
		t.Skip("the server's store keeps no events (store.Events) in this build")
	}
	is.Equal(res.StatusCode, 200)
	is.Equal(res.Header.Get("Content-Type"), "text/event-stream")
	go func() { _, _ = bufio.NewReader(res.Body).ReadString(0) }() // a client that reads
}
