package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/sandbox"
	"github.com/clientstatus/clientstatus/statusapi"
)

// errUsage reports flags the flag package refused (it has printed why).
var errUsage = errors.New("bad flags")

// config is the server's configuration: flags first, then environment
// variables for the settings that have one.
type config struct {
	addr        string
	dataFile    string
	publicURL   string
	linkTTL     time.Duration
	signingKey  string // secret: never logged
	databaseURL string // may hold a password: never logged
	redisURL    string // may hold a password: never logged
	redisPrefix string
	redisWait   time.Duration
	redisOutage ratelimit.OutagePolicy
	logFormat   string
	metricsAddr string
	cacheMiB    int // the response cache's size; 0: off
	// sandbox.go: how often the sandboxes change; 0: never
	sandboxInterval time.Duration
	// webhooks.go
	webhookRetries    []time.Duration // nil: webhook.DefaultSchedule
	webhookAllowLocal bool
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
	fs.StringVar(&c.addr, "addr", ":8080", "`address` to listen on")
	fs.StringVar(&c.dataFile, "data", "", "JSON data `file` to serve (see README.md); without it, the built-in demo data")
	fs.StringVar(&c.publicURL, "public-url", "", "`URL` at which clients reach the API, for download links (default http://localhost:<port of -addr>)")
	fs.DurationVar(&c.linkTTL, "link-ttl", statusapi.DefaultLinkTTL, "how long a signed download link stays valid")
	fs.StringVar(&c.signingKey, "signing-key", "", "secret that signs download links, 32+ bytes, the same on every replica (or $"+envSigningKey+"); without one, a random key")
	fs.StringVar(&c.databaseURL, "database-url", "", "PostgreSQL `URL` to serve from, migrated at start (or $"+envDatabaseURL+"); without one, in memory")
	fs.StringVar(&c.redisURL, "redis-url", "", "Redis `URL` for rate limits shared by replicas (or $"+envRedisURL+"); without one, in memory")
	fs.StringVar(&c.redisPrefix, "redis-prefix", ratelimit.DefaultPrefix, "start of the limiter's Redis keys: deployments that share a Redis and a prefix share budgets")
	fs.DurationVar(&c.redisWait, "redis-timeout", ratelimit.DefaultTimeout, "how long a request waits for Redis before the outage policy applies")
	fs.TextVar(&c.redisOutage, "redis-outage", ratelimit.FailOpen, "when Redis is down or slow: open (serve without limits, log a warning) or closed (503 UNAVAILABLE)")
	fs.DurationVar(&c.sandboxInterval, "sandbox-interval", sandbox.DefaultInterval, "how often the sandboxes of sandbox keys change by themselves; 0: never")
	fs.StringVar(&c.logFormat, "log-format", "text", "log format: text or json")
	fs.IntVar(&c.cacheMiB, "response-cache-mb", statusapi.DefaultResponseCacheBytes>>20, "size of the response cache in MiB (encoded answers kept until the data changes); 0 turns it off")
	fs.StringVar(&c.metricsAddr, "metrics-addr", "", "`address` to serve Prometheus metrics on, at /metrics, apart from the API; without one, no metrics")
	webhookFlags(fs, &c)
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
	fromEnv := func(v *string, name string) {
		if *v == "" {
			*v = getenv(name)
		}
	}
	fromEnv(&c.signingKey, envSigningKey)
	fromEnv(&c.databaseURL, envDatabaseURL)
	fromEnv(&c.redisURL, envRedisURL)
	return c, c.check()
}

// check refuses nonsense in the server's own flags, with a message saying
// what to change. What statusapi.New would refuse is checked by
// statusapi.Validate (see apiError), not copied here.
func (c config) check() error {
	if c.redisWait <= 0 {
		return fmt.Errorf("-redis-timeout %v: want a positive duration", c.redisWait)
	}
	if c.cacheMiB < 0 {
		return fmt.Errorf("-response-cache-mb %d: want 0 (off) or a positive size", c.cacheMiB)
	}
	if c.logFormat != "text" && c.logFormat != "json" {
		return fmt.Errorf("-log-format %q: want text or json", c.logFormat)
	}
	return nil
}

// apiError names the flag behind an option that statusapi.Validate
// refused, so that the message says what to change.
func apiError(err error) error {
	for option, flag := range map[string]string{
		"WithLinkTTL":    "-link-ttl",
		"WithPublicURL":  "-public-url",
		"WithSigningKey": "-signing-key or $" + envSigningKey,
	} {
		if strings.Contains(err.Error(), option) {
			return fmt.Errorf("%s: %w", flag, err)
		}
	}
	return err
}

// defaultPublicURL is where a client on this machine reaches a server
// listening on addr: http://localhost:<port> when it listens on every
// interface, else http://<host>:<port>.
func defaultPublicURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}
