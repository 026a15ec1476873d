package jwtauth

import (
	"cmp"
	"time"

	"github.com/clientstatus/clientstatus/option"
)

// Defaults and bounds of the options.
const (
	// DefaultOrgClaim is the claim that holds the organization id when
	// WithOrgClaim names none.
	DefaultOrgClaim = "org"
	// DefaultLeeway is the clock skew tolerated on "exp", "nbf" and "iat"
	// when WithLeeway gives none.
	DefaultLeeway = 30 * time.Second
	// MaxLeeway is the largest leeway New accepts: leeway is for clock
	// skew, not a way to extend a token's life.
	MaxLeeway = 5 * time.Minute
)

// Option configures New. Options follow the module's one policy (see
// package [github.com/clientstatus/clientstatus/option]): a nil Option is
// ignored, a zero value ("", 0, nil) means the option's default, and a
// value that no default stands for is an *option.Error naming the option,
// which New returns.
type Option func(*config)

// config is what the options set, defaults first.
type config struct {
	orgClaim string
	leeway   time.Duration
	now      func() time.Time
}

// newConfig applies opts over the defaults, and returns the first value
// that no default stands for as an *option.Error.
func newConfig(opts []Option) (config, error) {
	c := config{orgClaim: DefaultOrgClaim, leeway: DefaultLeeway, now: time.Now}
	option.Apply(&c, opts)
	switch {
	case c.leeway < 0:
		return c, option.Errorf("jwtauth", "WithLeeway", "%v is negative", c.leeway)
	case c.leeway > MaxLeeway:
		return c, option.Errorf("jwtauth", "WithLeeway", "%v is more than MaxLeeway (%v)", c.leeway, MaxLeeway)
	}
	return c, nil
}

// WithOrgClaim names the claim that holds the organization id, such as a
// namespaced "https://portal.example.com/org"; "" means DefaultOrgClaim
// ("org").
func WithOrgClaim(name string) Option {
	return func(c *config) { c.orgClaim = cmp.Or(name, DefaultOrgClaim) }
}

// WithLeeway sets the clock skew tolerated on "exp", "nbf" and "iat"; 0
// means DefaultLeeway (30s), so a tolerance of none is time.Nanosecond. New
// returns an *option.Error for a negative d or one above MaxLeeway (5m).
func WithLeeway(d time.Duration) Option {
	return func(c *config) { c.leeway = cmp.Or(d, DefaultLeeway) }
}

// WithClock replaces time.Now, for tests; nil means time.Now.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now == nil {
			now = time.Now
		}
		c.now = now
	}
}
