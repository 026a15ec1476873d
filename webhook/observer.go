package webhook

import "time"

// Observer is told of every attempt a dispatcher finishes, for metrics
// (package otelstatus implements it). Its method must be safe for
// concurrent use and return quickly.
type Observer interface {
	Attempted(a Attempt)
}

// Attempt is what an Observer is told of one attempt. It holds no secret
// and no body.
type Attempt struct {
	OrgID      string
	EndpointID string
	EventType  string
	// Number is the attempt's number, from 1.
	Number int
	// StatusCode is the answer's status, 0 when none came.
	StatusCode int
	// Error is the kind of failure ("timeout", "connection", "tls",
	// "refused_address", "redirect", "status" for an answer that is not
	// 2xx), "" for a success.
	Error    string
	Duration time.Duration
	// QueueAge is how long the event waited, from being queued to this
	// attempt's start.
	QueueAge time.Duration
}

type nopObserver struct{}

func (nopObserver) Attempted(Attempt) {}
