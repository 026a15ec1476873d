package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// The kinds of failure of an attempt that got no answer, or one that
// counts as none (store.WebhookDelivery's Error).
const (
	ErrorTimeout        = "timeout"
	ErrorConnection     = "connection"
	ErrorTLS            = "tls"
	ErrorRefusedAddress = "refused_address"
	ErrorRedirect       = "redirect"
)

// userAgent names the sender to receivers.
const userAgent = "clientstatus-webhooks/1"

// newClient returns the HTTP client of deliveries: no proxy (a proxy
// would dial for us, past the address check), no redirect followed (a 3xx
// is the answer), the dialer's address check unless allowLocal.
func newClient(cfg config) *http.Client {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer(cfg.allowLocal).DialContext,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   10 * time.Second,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: cfg.timeout,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       cfg.timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// attempt makes one attempt of job to its endpoint as claimed with it
// (its URL, secrets and failing streak as they were then; read now when
// the store's claim does not carry it), and records it. An attempt cut
// short by ctx (the dispatcher stopping) is not recorded: the job stays
// claimed until the claim expires, then is made again.
func (d *Dispatcher) attempt(ctx context.Context, job store.WebhookJob) {
	e := job.Endpoint
	if e.ID == "" {
		var err error
		e, err = d.st.GetWebhookEndpoint(ctx, job.OrgID, job.EndpointID)
		if err != nil {
			if !errors.Is(err, store.ErrNotFound) && ctx.Err() == nil {
				d.cfg.logger.Warn("webhook: reading endpoint", "org", job.OrgID, "endpoint", job.EndpointID, "err", err)
			}
			return
		}
	}
	start := d.cfg.now()
	secrets, err := d.secrets(e, start)
	if err != nil {
		d.cfg.logger.Error("webhook: endpoint secret", "org", e.OrgID, "endpoint", e.ID, "err", err)
		return
	}
	status, failure, header := d.send(ctx, e.URL, job, secrets, start)
	if ctx.Err() != nil {
		return
	}
	took := d.cfg.now().Sub(start)
	n := job.Attempts + 1
	delivery := store.WebhookDelivery{ID: newID("whd_"), EndpointID: e.ID, EventID: job.EventID, EventType: job.EventType,
		Attempt: n, AttemptedAt: start, StatusCode: status, Error: failure, Duration: took}
	var o store.WebhookOutcome
	switch {
	case failure == "" && status >= 200 && status < 300:
		o.Success = true
	case status == http.StatusGone:
		o.Disable = ReasonGone
	default:
		if delay, ok := nextDelay(d.cfg.schedule, n, retryAfter(header, start)); ok {
			o.Retry = start.Add(took + delay)
			d.retryAt(o.Retry)
		}
		if !e.FailingSince.IsZero() && start.Sub(e.FailingSince) >= DisableAfter {
			o.Disable = ReasonFailing
		}
	}
	kind := failure
	if !o.Success && kind == "" {
		kind = "status"
	}
	// The record is written even as the dispatcher stops: the attempt
	// was made.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := d.st.FinishWebhookAttempt(wctx, job, delivery, o); err != nil && !errors.Is(err, store.ErrNotFound) {
		d.cfg.logger.Warn("webhook: recording attempt", "org", e.OrgID, "endpoint", e.ID, "err", err)
	}
	d.cfg.observer.Attempted(Attempt{OrgID: e.OrgID, EndpointID: e.ID, EventType: job.EventType, Number: n,
		StatusCode: status, Error: kind, Duration: took, QueueAge: start.Sub(job.QueuedAt)})
}

// secrets returns the endpoint's secrets that sign at now: its own, and
// the one it replaced during RotationOverlap.
func (d *Dispatcher) secrets(e store.WebhookEndpoint, now time.Time) ([]string, error) {
	s, err := d.seal.open(e.OrgID, e.ID, e.Secret)
	if err != nil {
		return nil, err
	}
	out := []string{s}
	if e.PreviousSecret != nil && now.Before(e.PreviousSecretUntil) {
		if p, err := d.seal.open(e.OrgID, e.ID, e.PreviousSecret); err == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// send POSTs the job's body to target, signed at `at`, and returns the
// answer's status (0 for none), the kind of failure ("" for none, or the
// 2xx/other status alone) and the answer's header. The answer's body is
// read a little, for the connection's sake, and dropped.
func (d *Dispatcher) send(ctx context.Context, target string, job store.WebhookJob, secrets []string, at time.Time) (int, string, http.Header) {
	if u, err := url.Parse(target); err != nil || u.Scheme != "https" && !(d.cfg.allowLocal && u.Scheme == "http") {
		return 0, ErrorRefusedAddress, nil
	}
	sig, err := signatures(secrets, job.EventID, at, job.Body)
	if err != nil {
		return 0, ErrorConnection, nil
	}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(job.Body))
	if err != nil {
		return 0, ErrorConnection, nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set(HeaderID, job.EventID)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(at.Unix(), 10))
	req.Header.Set(HeaderSignature, sig)
	res, err := d.client.Do(req)
	if err != nil {
		return 0, classify(err), nil
	}
	io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	res.Body.Close()
	if res.StatusCode >= 300 && res.StatusCode < 400 {
		return res.StatusCode, ErrorRedirect, res.Header
	}
	return res.StatusCode, "", res.Header
}

// classify names the kind of failure of a request that got no answer.
func classify(err error) string {
	var (
		netErr   net.Error
		certErr  *tls.CertificateVerificationError
		recErr   tls.RecordHeaderError
		alertErr tls.AlertError
		unknown  x509.UnknownAuthorityError
		hostErr  x509.HostnameError
		invalid  x509.CertificateInvalidError
	)
	switch {
	case errors.Is(err, ErrRefusedAddress):
		return ErrorRefusedAddress
	case errors.As(err, &certErr), errors.As(err, &recErr), errors.As(err, &alertErr),
		errors.As(err, &unknown), errors.As(err, &hostErr), errors.As(err, &invalid):
		return ErrorTLS
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return ErrorTimeout
	default:
		return ErrorConnection
	}
}
