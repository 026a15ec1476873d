package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/internal/accesslog"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/otelstatus"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/ratelimit/redislimit"
	"github.com/clientstatus/clientstatus/sandbox"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/statusmcp"
)

// The server's limits on slow or greedy clients.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 15 * time.Second
	writeTimeout      = 2 * time.Minute // a whole response, a file download included
	idleTimeout       = 2 * time.Minute
	maxHeaderBytes    = 64 << 10
	shutdownTimeout   = 15 * time.Second
	startupTimeout    = 2 * time.Minute // connecting to the services, migrating and loading the data
)

// endpoints are where a started server answers.
type endpoints struct {
	api     string // the API's base URL: the public URL
	metrics string // the Prometheus metrics' URL; "" without -metrics-addr
}

// hooks connect run to what started it: main's signals, or a test's
// channels. Every field may be nil.
type hooks struct {
	ready    func(endpoints)  // once the server accepts connections
	reload   <-chan os.Signal // asks for the data file to be read again (main: SIGHUP)
	reloaded func(error)      // with each reload's outcome: nil when applied, or there is no file
	// clock, when not nil, is what the store dates its writes by, so
	// that a test moves on to the next second instead of waiting for it.
	clock func() time.Time
}

// run runs the server until ctx is done, then shuts it down gracefully.
// getenv reads the environment (os.Getenv). It returns flag.ErrHelp after
// -h, errUsage after bad flags, and an error saying what is wrong when the
// server cannot start.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, h hooks) error {
	cfg, err := parseConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	log := newLogger(cfg.logFormat, stderr)

	ds := demoData()
	if cfg.dataFile != "" {
		if ds, err = readDataFile(cfg.dataFile); err != nil {
			return err
		}
		warnAbout(log, ds)
	}

	startCtx, cancel := context.WithTimeout(ctx, startupTimeout)
	defer cancel()
	b, closeBackend, err := openBackend(startCtx, cfg, log, h.clock)
	if err != nil {
		return err
	}
	defer closeBackend()
	keys := auth.NewKeys(b.keys, auth.WithLogger(log))
	defer func() {
		if err := keys.Close(); err != nil {
			log.Warn("recording when keys were last used", "err", err)
		}
	}()
	if err := load(startCtx, b.target(keys), ds); err != nil {
		return fmt.Errorf("loading the data: %w", err)
	}
	var sim *sandbox.Simulator
	if cfg.sandboxInterval > 0 {
		sim = sandbox.New(b.store, cfg.sandboxOptions(log)...)
	}
	if err := seedSandboxes(startCtx, b.store, ds, sim); err != nil {
		return fmt.Errorf("seeding the sandboxes: %w", err)
	}
	lv := newLive(keys, ds.content)
	// On PostgreSQL the cache hears every replica's revocations through
	// the store (LISTEN), on its own connection, which Close gives back.
	defer lv.cache.Close()
	lim, closeLimiter, err := openLimiter(startCtx, cfg, log)
	if err != nil {
		return err
	}
	defer closeLimiter()

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("-addr: %w", err)
	}
	defer ln.Close() // when run fails before serving
	if cfg.publicURL == "" {
		cfg.publicURL = defaultPublicURL(ln.Addr())
	}
	if cfg.signingKey == "" {
		// A random key of our own, so the one warning names the flag.
		key := make([]byte, 32)
		rand.Read(key)
		cfg.signingKey = string(key)
		log.Warn("no signing key: set -signing-key or $" + envSigningKey + " (32+ random bytes, the same on every replica); using a random one, so download links will not survive a restart nor verify on other replicas")
	}
	streams, endStreams := context.WithCancel(context.Background())
	defer endStreams()
	// The request log and the usage per key: in memory, or on PostgreSQL
	// shared by the replicas. Deferred here, Close runs after the HTTP
	// server's Shutdown and before the store closes, so the last requests
	// are written.
	rec := statusapi.NewRequestRecorder(b.store) // logs through the handler's WithLogger
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
		defer cancel()
		if err := rec.Close(closeCtx); err != nil {
			log.Warn("request log: writing the last requests", "err", err)
		}
	}()
	// The flags' options, then the server's own; one logger for every part.
	opts := append(cfg.apiOptions(),
		statusapi.WithFiles(sandbox.FilesBeside(lv)),
		statusapi.WithLogger(log),
		// Live event streams end when the server shuts down (below:
		// RegisterOnShutdown), so that Shutdown does not wait for them.
		statusapi.WithShutdown(streams),
		// The webhook endpoints that the dispatcher (startWebhooks) keeps
		// in the store, served as the API's webhook routes.
		statusapi.WithWebhookEndpoints(b.store),
		statusapi.WithMCP(statusmcp.Handler()), // AI assistants: the Model Context Protocol at POST /v1/mcp
		statusapi.WithRequestLog(rec),
	)
	if err := statusapi.Validate(b.store, lv.cache, lim, opts...); err != nil {
		return cfg.flagError(err)
	}
	api := lv.guard(statusapi.New(b.store, lv.cache, lim, opts...))
	// A limiter that fails open serves, unlimited, while Redis is down:
	// the replica stays ready.
	readyLim := lim
	if cfg.redisOutage == ratelimit.FailOpen {
		readyLim = nil
	}
	ready := statusapi.Readiness(b.store, lv.cache, readyLim, log)
	var metrics *metricsServer
	if cfg.metricsAddr != "" {
		if metrics, err = newMetricsServer(cfg.metricsAddr, log); err != nil {
			return err
		}
		api = otelstatus.Middleware(api, otelstatus.WithMeterProvider(metrics.provider))
		// The request log's dropped and lost records, read at each scrape
		// until the provider shuts down.
		otelstatus.ObserveRecorder(rec, otelstatus.WithMeterProvider(metrics.provider))
	}

	cfg.webhookAllowLocal = allowLocalWebhooks(cfg, ln.Addr())
	wh, err := startWebhooks(startCtx, cfg, b.store, ds, []byte(cfg.signingKey), log, metrics)
	if err != nil {
		return err
	}
	// The developer settings, behind the demo sign-in: on loopback only,
	// since anyone who reaches it may sign in as anyone.
	var settings http.Handler
	if loopback(ln.Addr()) {
		settings = newDemoSettings(keys, b, wh, lim, sim, ds.orgs, log)
	} else {
		log.Info("developer settings not served: their demo sign-in is for a server listening on loopback only")
	}
	// The request log, a line per request, is written in blocks, at least
	// every accesslog.DefaultFlushInterval, rather than a system call per
	// line; the server's other lines are written at once. The rest of the
	// block is written when run returns.
	requestBuf := accesslog.NewBuffer(stderr, 0)
	defer requestBuf.Close()
	logged := accesslog.JSONHandler(requestBuf, routes(api, ready, settings)) // slog's JSON lines, written faster
	if cfg.logFormat != "json" {
		logged = accesslog.Handler(newLogger(cfg.logFormat, requestBuf), routes(api, ready, settings))
	}
	srv := newHTTPServer(logged, log)
	srv.RegisterOnShutdown(endStreams)
	served := make(chan error, 2)
	go func() { served <- srv.Serve(ln) }()
	if metrics != nil {
		go func() { served <- fmt.Errorf("metrics: %w", metrics.serve()) }()
		log.Info("serving metrics", "addr", metrics.ln.Addr().String(), "url", metrics.url)
	}

	// The reloads stop before the backend closes (deferred above).
	reloads, stopReloads := context.WithCancel(ctx)
	var reloading sync.WaitGroup
	defer reloading.Wait()
	defer stopReloads()
	rl := &reloader{file: cfg.dataFile, log: log, b: b, live: lv, applied: ds, sim: sim, hooks: wh}
	reloading.Go(func() { rl.loop(reloads, h.reload, h.reloaded) })
	if sim != nil {
		reloading.Go(func() { _ = sim.Run(reloads) })
	}

	printWelcome(stdout, cfg, ds, settings != nil)
	log.Info("listening", "addr", ln.Addr().String(), "public_url", cfg.publicURL)
	if h.ready != nil {
		e := endpoints{api: cfg.publicURL}
		if metrics != nil {
			e.metrics = metrics.url
		}
		h.ready(e)
	}

	select {
	case err := <-served:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down", "grace", shutdownTimeout.String())
	shutCtx, cancelShut := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancelShut()
	if err := srv.Shutdown(shutCtx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := wh.stop(shutCtx); err != nil {
		log.Warn("webhook attempts still in flight were left to other replicas", "err", err)
	}
	if metrics != nil {
		if err := metrics.shutdown(shutCtx); err != nil {
			return fmt.Errorf("shutting down the metrics: %w", err)
		}
	}
	log.Info("stopped")
	return nil
}

// routes serves the API at the root and beside it the server's own
// routes: /healthz, liveness, and /readyz, readiness (ready, which logs
// why a part is not ready); and the developer settings under
// settingsPath, when settings is not nil.
func routes(api, ready, settings http.Handler) http.Handler {
	// Not a ServeMux: it would answer paths such as /v1//projects or
	// /v1/projects/.. itself, with an HTML redirect, before the API could
	// answer them with its JSON 404.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case p == "/healthz":
			healthz(w, r)
		case p == "/readyz":
			ready.ServeHTTP(w, r)
		case settings != nil && p == settingsPath:
			http.Redirect(w, r, settingsPath+"/", http.StatusSeeOther)
		case settings != nil && strings.HasPrefix(p, settingsPath+"/"):
			settings.ServeHTTP(w, r)
		default:
			api.ServeHTTP(w, r)
		}
	})
}

// newHTTPServer returns a server of h with the server's limits.
func newHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

func newLogger(format string, w io.Writer) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

func readDataFile(name string) (*dataset, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("-data: %w", err)
	}
	defer f.Close()
	ds, err := parseData(f)
	if err != nil {
		return nil, fmt.Errorf("data file %s: %w", name, err)
	}
	return ds, nil
}

// openBackend opens the store and key store: PostgreSQL, migrated, when
// a database URL is set, else memory. Files are kept in memory either way
// (see live). clock, when not nil, is the store's (hooks.clock).
func openBackend(ctx context.Context, cfg config, log *slog.Logger, clock func() time.Time) (backend, func(), error) {
	if cfg.databaseURL == "" {
		st := memstore.New(memstore.WithClock(clock))
		return backend{store: st, keys: auth.NewMemoryKeyStore(st)}, func() {}, nil
	}
	db, err := bunstore.Open(ctx, cfg.databaseURL)
	if err != nil {
		// bunstore's errors never quote the URL, which may hold a password.
		return backend{}, nil, fmt.Errorf("-database-url: %w", err)
	}
	if err := bunstore.Migrate(ctx, db); err != nil {
		db.Close()
		return backend{}, nil, fmt.Errorf("migrating the database: %w", err)
	}
	log.Info("using PostgreSQL", "migrated", true)
	st := bunstore.New(db, bunstore.WithLogger(log), bunstore.WithClock(clock))
	// A reload writes in one transaction, committed under the API's guard.
	begin := func(ctx context.Context) (target, func() error, func(), error) {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return target{}, nil, nil, err
		}
		in := st.WithTx(tx)
		return target{writer: in, ks: in, keys: auth.NewKeys(in, auth.WithLogger(log))}, tx.Commit, func() { _ = tx.Rollback() }, nil
	}
	return backend{store: st, keys: st, begin: begin}, func() { db.Close() }, nil
}

// openLimiter returns the rate limiter: on Redis, shared by every replica
// that uses the same one, when a Redis URL is set, else in memory.
func openLimiter(ctx context.Context, cfg config, log *slog.Logger) (ratelimit.Limiter, func(), error) {
	if cfg.redisURL == "" {
		return ratelimit.NewMemory(cfg.limiterOptions(log)...), func() {}, nil
	}
	opt, err := redis.ParseURL(cfg.redisURL)
	if err != nil {
		// go-redis's message may quote the URL, password included.
		return nil, nil, errors.New("-redis-url: not a redis:// or rediss:// URL")
	}
	// Give a call abandoned at the limiter's timeout its connection back
	// at once, rather than after go-redis's read timeout.
	opt.ContextTimeoutEnabled = true
	rdb := redis.NewClient(opt)
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		return nil, nil, fmt.Errorf("-redis-url: Redis does not answer: %w", err)
	}
	log.Info("using Redis for rate limits")
	return redislimit.New(rdb, cfg.limiterOptions(log)...), func() { rdb.Close() }, nil
}

// responseCache is the option of -response-cache-mb: a cache of that many
// MiB, or none for 0.
func responseCache(mib int) statusapi.Option {
	if mib == 0 {
		return statusapi.WithoutResponseCache()
	}
	return statusapi.WithResponseCache(int64(mib) << 20)
}
