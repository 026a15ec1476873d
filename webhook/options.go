package webhook

import (
	"cmp"
	"log/slog"
	"time"

	"github.com/clientstatus/clientstatus/option"
)

// DeliveryTimeout is how long an attempt may take, from dialing to the
// answer's status: a 2xx within it is a success.
const DeliveryTimeout = 15 * time.Second

// Option configures NewDispatcher and NewEndpoints. Options follow the
// module's one policy (see package
// [github.com/clientstatus/clientstatus/option]): a nil option, or nil or
// a zero value, keeps the default, and a value no default stands for (a
// negative duration, a delay that is not positive) is an *option.Error
// naming the option, with which NewDispatcher panics and which Validate
// returns. NewEndpoints reads only WithAllowLocal and WithClock, which
// take no value in error.
type Option func(*config)

type config struct {
	schedule    []time.Duration
	allowLocal  bool
	now         func() time.Time
	poll        time.Duration
	claim       time.Duration
	concurrency int
	timeout     time.Duration
	observer    Observer
	leader      Leader
	logger      *slog.Logger
	option.Check
}

func newConfig(opts []Option) config {
	c := config{schedule: DefaultSchedule, now: time.Now, poll: defaultPoll, claim: defaultClaim,
		concurrency: defaultConcurrency, timeout: DeliveryTimeout, observer: nopObserver{}, logger: slog.New(slog.DiscardHandler)}
	option.Apply(&c, opts)
	return c
}

// Validate reports the *option.Error with which NewDispatcher would panic
// given opts, or nil: a program that builds its options from
// configuration calls it first.
func Validate(opts ...Option) error {
	c := newConfig(opts)
	return c.Err()
}

// Defaults of the dispatcher's options.
const (
	defaultPoll        = time.Second
	defaultClaim       = time.Minute
	defaultConcurrency = 16
)

// WithSchedule sets the delays between attempts (DefaultSchedule unless
// set): len(s)+1 attempts in all, each delay moved by 10 to 20 per cent of
// jitter. The example server's -webhook-retries sets it for tests.
func WithSchedule(s []time.Duration) Option {
	return func(c *config) {
		for _, d := range s {
			if d <= 0 {
				c.Refuse("webhook", "WithSchedule", "delay %v is not positive", d)
				return
			}
		}
		c.schedule = DefaultSchedule
		if len(s) > 0 {
			c.schedule = append([]time.Duration(nil), s...)
		}
	}
}

// WithAllowLocal, for development only, lets endpoints use http and lets
// deliveries connect to any address, loopback and private ones included.
// Off by default: only https URLs, and only public addresses, checked on
// the address actually dialed.
func WithAllowLocal(allow bool) Option { return func(c *config) { c.allowLocal = allow } }

// WithClock sets the clock that dates attempts and decides when retries
// are due (time.Now unless set).
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		c.now = now
		if now == nil {
			c.now = time.Now
		}
	}
}

// WithPollInterval sets how often the dispatcher looks for due retries
// and for endpoints new or enabled again, without being woken (1 s unless
// set); every 10 polls it also looks at one organization in turn for new
// events, in case the store's notifications fail (when they come back,
// every organization is looked at).
func WithPollInterval(d time.Duration) Option {
	return func(c *config) { option.NonNegative(&c.Check, "webhook", "WithPollInterval", &c.poll, d, defaultPoll) }
}

// WithClaimExpiry sets how long a claimed delivery stays with the replica
// that claimed it (1 minute unless set): when that replica dies, another
// delivers it after this long. It must exceed the attempt's timeout; a
// shorter one lets two replicas deliver one attempt at once.
func WithClaimExpiry(d time.Duration) Option {
	return func(c *config) { option.NonNegative(&c.Check, "webhook", "WithClaimExpiry", &c.claim, d, defaultClaim) }
}

// WithConcurrency sets how many attempts one dispatcher makes at once (16
// unless set).
func WithConcurrency(n int) Option {
	return func(c *config) {
		option.NonNegative(&c.Check, "webhook", "WithConcurrency", &c.concurrency, n, defaultConcurrency)
	}
}

// WithTimeout sets how long an attempt may take (DeliveryTimeout unless
// set).
func WithTimeout(d time.Duration) Option {
	return func(c *config) {
		option.NonNegative(&c.Check, "webhook", "WithTimeout", &c.timeout, d, DeliveryTimeout)
	}
}

// WithObserver sets what is told of every attempt (nothing unless set);
// package otelstatus has one.
func WithObserver(o Observer) Option {
	return func(c *config) { c.observer = cmp.Or(o, Observer(nopObserver{})) }
}

// WithLogger sets where the dispatcher logs what goes wrong with the store
// (nothing unless set). It never logs a secret or a response body.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = cmp.Or(l, slog.New(slog.DiscardHandler)) }
}

// WithLeader makes the dispatcher queue events only while l says it leads
// (see Leader); it claims and attempts either way. Without it (or with
// nil) every dispatcher queues, which is safe but costs each replica the
// reads. bunstore's Store is a Leader.
func WithLeader(l Leader) Option { return func(c *config) { c.leader = l } }
