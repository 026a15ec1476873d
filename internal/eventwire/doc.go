// Package eventwire is the one encoding of a store.Event on the wire: the
// event JSON that GET /v1/events serves, that its live stream sends as
// data, and that a webhook POSTs as its body. Every place that writes an event calls Encode (or From),
// so the three never drift apart.
package eventwire
