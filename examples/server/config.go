package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/sandbox"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/webhook"
)

// errUsage reports flags the flag package refused (it has printed why).
var errUsage = errors.New("bad flags")

// config is the server's configuration: flags first, then environment
// variables for the settings that have one.
type config struct {
	addr                 string
	dataFile             string
	publicURL            string
	linkTTL              time.Duration
	signingKey           string // secret: never logged
	databaseURL          string // may hold a password: never logged
	redisURL             string // may hold a password: never logged
	redisPrefix          string
	redisWait            time.Duration
	redisOutage          ratelimit.OutagePolicy
	logFormat            string
	metricsAddr          string
	cacheMiB             int             // the response cache's size; 0: off
	sandboxInterval      time.Duration   // how often the sandboxes change; 0: never
	webhookRetries       []time.Duration // nil: webhook.DefaultSchedule
	webhookAllowLocal    bool
	webhookAllowLocalSet bool // -webhooks-allow-local was given, either way (see allowLocalWebhooks)
}

// The environment variables the server reads.
const (
	envSigningKey  = "CLIENTSTATUS_SIGNING_KEY"
	envDatabaseURL = "DATABASE_URL"
	envRedisURL    = "REDIS_URL"
)

func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "`address` to listen on: this machine only by default, since the demo keys are public; \":8080\" listens on every interface")
	fs.StringVar(&c.dataFile, "data", "", "JSON data `file` to serve (see docs/data-file.md); without it, the built-in demo data")
	fs.StringVar(&c.publicURL, "public-url", "", "`URL` at which clients reach the API, for download links (default http://localhost:<port of -addr>)")
	fs.DurationVar(&c.linkTTL, "link-ttl", statusapi.DefaultLinkTTL, "how long a signed download link stays valid")
	fs.StringVar(&c.signingKey, "signing-key", "", "secret that signs download links, 32+ bytes, the same on every replica (or $"+envSigningKey+"); without one, a random key")
	fs.StringVar(&c.databaseURL, "database-url", "", "PostgreSQL `URL` to serve from, migrated at start (or $"+envDatabaseURL+"); without one, in memory")
	fs.StringVar(&c.redisURL, "redis-url", "", "Redis `URL` for rate limits shared by replicas (or $"+envRedisURL+"); without one, in memory")
	fs.StringVar(&c.redisPrefix, "redis-prefix", ratelimit.DefaultPrefix, "start of the limiter's Redis keys: deployments that share a Redis and a prefix share budgets")
	fs.DurationVar(&c.redisWait, "redis-timeout", ratelimit.DefaultTimeout, "how long a request waits for Redis before the outage policy applies (0: the default)")
	fs.TextVar(&c.redisOutage, "redis-outage", ratelimit.FailOpen, "when Redis is down or slow: open (serve without limits, log a warning) or closed (503 UNAVAILABLE)")
	fs.DurationVar(&c.sandboxInterval, "sandbox-interval", sandbox.DefaultInterval, "how often the sandboxes of sandbox keys change by themselves (5s with the built-in demo data); 0: never")
	fs.StringVar(&c.logFormat, "log-format", "text", "log format: text or json")
	fs.IntVar(&c.cacheMiB, "response-cache-mb", statusapi.DefaultResponseCacheBytes>>20, "size of the response cache in MiB (encoded answers kept until the data changes); 0 turns it off")
	fs.StringVar(&c.metricsAddr, "metrics-addr", "", "`address` to serve Prometheus metrics on, at /metrics, apart from the API; without one, no metrics")
	fs.Func("webhook-retries", "comma-separated `delays` between webhook attempts (default 5s,5m,30m,2h,5h,10h,10h)", func(v string) error {
		var out []time.Duration
		for _, part := range strings.Split(v, ",") {
			d, err := time.ParseDuration(strings.TrimSpace(part))
			if err != nil || d <= 0 {
				return fmt.Errorf("%q is not a positive duration such as 5s", part)
			}
			out = append(out, d)
		}
		c.webhookRetries = out
		return nil
	})
	fs.BoolVar(&c.webhookAllowLocal, "webhooks-allow-local", false, "for development only: deliver webhooks over http and to loopback and private addresses (default: on while the server listens on loopback)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "unexpected arguments: %q\n", fs.Args())
		fs.Usage()
		return c, errUsage
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	c.webhookAllowLocalSet = given["webhooks-allow-local"]
	if c.dataFile == "" && !given["sandbox-interval"] {
		c.sandboxInterval = demoSandboxInterval // the demo's first stream shows something soon
	}
	c.signingKey = cmp.Or(c.signingKey, getenv(envSigningKey))
	c.databaseURL = cmp.Or(c.databaseURL, getenv(envDatabaseURL))
	c.redisURL = cmp.Or(c.redisURL, getenv(envRedisURL))
	return c, c.check()
}

// demoSandboxInterval is how often the demo data's sandbox moves, unless
// -sandbox-interval says otherwise: every few seconds, so that a stream
// opened with its key shows an event soon.
const demoSandboxInterval = 5 * time.Second

// check refuses nonsense in the flags, with a message saying what to
// change: the server's own flags here, and the options built from flags
// through each package's Validate, whose *option.Error flagError maps
// back to its flag. What the packages refuse is not copied here.
func (c config) check() error {
	if c.logFormat != "text" && c.logFormat != "json" {
		return fmt.Errorf("-log-format %q: want text or json", c.logFormat)
	}
	for _, err := range []error{
		statusapi.ValidateOptions(c.apiOptions()...),
		ratelimit.Validate(c.limiterOptions(nil)...),
		sandbox.Validate(c.sandboxOptions(nil)...),
		webhook.Validate(c.webhookOptions(nil)...),
	} {
		if err != nil {
			return c.flagError(err)
		}
	}
	return nil
}

// The options each part gets from the flags. log is the server's one
// logger (nil, in check: the default).

// apiOptions are the handler's options set by flags; run adds the others.
func (c config) apiOptions() []statusapi.Option {
	opts := []statusapi.Option{statusapi.WithLinkTTL(c.linkTTL), responseCache(c.cacheMiB)}
	if c.publicURL != "" {
		opts = append(opts, statusapi.WithPublicURL(c.publicURL))
	}
	if c.signingKey != "" {
		opts = append(opts, statusapi.WithSigningKey([]byte(c.signingKey)))
	}
	return opts
}

// limiterOptions are the rate limiter's, memory or Redis: the -redis-
// flags change nothing in memory, which neither waits nor fails, but are
// checked either way.
func (c config) limiterOptions(log *slog.Logger) []ratelimit.Option {
	return []ratelimit.Option{ratelimit.WithLogger(log), ratelimit.WithPrefix(c.redisPrefix),
		ratelimit.WithTimeout(c.redisWait), ratelimit.WithOutagePolicy(c.redisOutage)}
}

// sandboxOptions are the sandbox simulator's.
func (c config) sandboxOptions(log *slog.Logger) []sandbox.Option {
	return []sandbox.Option{sandbox.WithInterval(c.sandboxInterval), sandbox.WithLogger(log)}
}

// webhookOptions are the webhook endpoints' and dispatcher's.
func (c config) webhookOptions(log *slog.Logger) []webhook.Option {
	return []webhook.Option{webhook.WithAllowLocal(c.webhookAllowLocal), webhook.WithSchedule(c.webhookRetries), webhook.WithLogger(log)}
}

// optionFlags names the flag behind each option the server sets from
// one, by the option's package and name (option.Error), so that a refused
// option is reported as its flag.
var optionFlags = []struct {
	pkg, option, flag string
	value             func(c config) string // the flag's value, quoted in the error; nil for a secret
}{
	{"statusapi", "WithLinkTTL", "-link-ttl", func(c config) string { return c.linkTTL.String() }},
	{"statusapi", "WithPublicURL", "-public-url", func(c config) string { return strconv.Quote(c.publicURL) }},
	{"statusapi", "WithSigningKey", "-signing-key or $" + envSigningKey, nil},
	{"statusapi", "WithResponseCache", "-response-cache-mb", func(c config) string { return strconv.Itoa(c.cacheMiB) }},
	{"ratelimit", "WithTimeout", "-redis-timeout", func(c config) string { return c.redisWait.String() }},
	{"ratelimit", "WithPrefix", "-redis-prefix", func(c config) string { return strconv.Quote(c.redisPrefix) }},
	{"ratelimit", "WithOutagePolicy", "-redis-outage", func(c config) string { return strconv.Itoa(int(c.redisOutage)) }},
	{"sandbox", "WithInterval", "-sandbox-interval", func(c config) string { return c.sandboxInterval.String() }},
	{"webhook", "WithSchedule", "-webhook-retries", func(c config) string { return fmt.Sprint(c.webhookRetries) }},
}

// flagError names the flag behind the *option.Error in err, found with
// errors.As, so that the message says what to change; an error of any
// other kind is returned as it is.
func (c config) flagError(err error) error {
	var oe *option.Error
	if !errors.As(err, &oe) {
		return err
	}
	for _, f := range optionFlags {
		if f.pkg != oe.Package || f.option != oe.Option {
			continue
		}
		if f.value == nil {
			return fmt.Errorf("%s: %w", f.flag, err)
		}
		return fmt.Errorf("%s %s: %w", f.flag, f.value(c), err)
	}
	return err
}

// defaultPublicURL is where a client on this machine reaches a server
// listening on addr: http://localhost:<port> when it listens on every
// interface or on loopback, else http://<host>:<port>.
func defaultPublicURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && (ip.IsUnspecified() || ip.IsLoopback())) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}
