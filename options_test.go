package clientstatus_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // bunstore.New's driver, never connected
	"github.com/matryer/is"
	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/clientstatus/clientstatus/auth"
	"github.com/clientstatus/clientstatus/auth/jwtauth"
	"github.com/clientstatus/clientstatus/auth/redisinvalidate"
	"github.com/clientstatus/clientstatus/bunstore"
	"github.com/clientstatus/clientstatus/devsettings"
	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/memstore"
	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/otelstatus"
	"github.com/clientstatus/clientstatus/ratelimit"
	"github.com/clientstatus/clientstatus/sandbox"
	"github.com/clientstatus/clientstatus/statusapi"
	"github.com/clientstatus/clientstatus/statusclient"
	"github.com/clientstatus/clientstatus/statusmcp"
	"github.com/clientstatus/clientstatus/store"
	"github.com/clientstatus/clientstatus/webhook"
)

// probe is one value given to an option, and the outcome the policy
// (package option) wants for it.
type probe struct {
	value string // what is given: "nil", "zero", "negative", ...
	// validate and build are the package's Validate (or its constructor
	// where the constructor returns errors) and its constructor, each
	// given the option alone; build turns a panic into its value.
	validate, build func() error
	// refused: the policy wants an *option.Error naming the option from
	// both; else neither may fail.
	refused bool
}

// row is what TestOptionsPolicy checks of one With... function: its
// probes, or why it has none.
type row struct {
	probes []probe
	none   string // why there is no probe: not configuration
	// secret marks a key or secret, the rule's one exception: its zero
	// value is refused, never defaulted (package option, rule 3).
	secret bool
}

// catch runs f, returning what it panics with as an error (nil when it
// does not panic).
func catch(f func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			if e, ok := v.(error); ok {
				err = e
				return
			}
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	f()
	return nil
}

var quiet = slog.New(slog.DiscardHandler)

// One function per option type: the probe of an option value through its
// package's Validate and constructor.

func api(value string, o statusapi.Option, refused bool) probe {
	st, lim := memstore.New(), ratelimit.NewMemory()
	keys := auth.NewKeys(auth.NewMemoryKeyStore(st))
	return probe{value,
		func() error { return statusapi.ValidateOptions(o) },
		func() error {
			return catch(func() { statusapi.New(st, keys, lim, statusapi.WithLogger(quiet), o) })
		}, refused}
}

func recorder(value string, o statusapi.RecorderOption, refused bool) probe {
	return probe{value,
		func() error { return statusapi.ValidateRecorder(o) },
		func() error {
			return catch(func() {
				rec := statusapi.NewRequestRecorder(memstore.New(), o)
				_ = rec.Close(context.Background())
			})
		}, refused}
}

func authOpt(value string, o auth.Option, refused bool) probe {
	return probe{value,
		func() error { return auth.Validate(o) },
		func() error {
			ks := auth.NewMemoryKeyStore(memstore.New())
			if err := catch(func() { auth.NewKeys(ks, o) }); err != nil {
				return err
			}
			return catch(func() { auth.NewCache(auth.NewKeys(ks), o).Close() })
		}, refused}
}

func jwt(value string, o jwtauth.Option, refused bool) probe {
	cfg := jwtauth.Config{Algorithm: "HS256", Key: []byte("0123456789abcdef0123456789abcdef"), Issuer: "https://portal.example", Audience: "clientstatus"}
	build := func() error {
		_, err := jwtauth.New(cfg, memstore.New(), o)
		return err
	}
	return probe{value, build, build, refused}
}

func channel(value string, o redisinvalidate.Option) probe {
	build := func() error {
		rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never dialled
		defer rdb.Close()
		return catch(func() { redisinvalidate.New(rdb, o) })
	}
	return probe{value, build, build, false}
}

func limiter(value string, o ratelimit.Option, refused bool) probe {
	return probe{value,
		func() error { return ratelimit.Validate(o) },
		func() error { return catch(func() { ratelimit.NewMemory(o) }) }, refused}
}

func memory(value string, o memstore.Option) probe {
	build := func() error { return catch(func() { memstore.New(o) }) }
	return probe{value, build, build, false}
}

// neverConnected is a *bun.DB on pgx that nothing dials: bunstore.New
// connects to nothing.
var neverConnected = func() *bun.DB {
	sqldb, err := sql.Open("pgx", "postgres://u@127.0.0.1:1/x")
	if err != nil {
		panic(err)
	}
	return bun.NewDB(sqldb, pgdialect.New())
}()

func bunOpt(value string, o bunstore.Option, refused bool) probe {
	return probe{value,
		func() error { return bunstore.Validate(o) },
		func() error { return catch(func() { bunstore.New(neverConnected, o) }) }, refused}
}

func open(value string, o bunstore.OpenOption, refused bool) probe {
	build := func() error {
		// No URL: Open refuses it, wrapping store.ErrInvalid, once past
		// the options, so it connects to nothing.
		_, err := bunstore.Open(context.Background(), "", o)
		if errors.Is(err, store.ErrInvalid) {
			return nil
		}
		return err
	}
	return probe{value, build, build, refused}
}

func hook(value string, o webhook.Option, refused bool) probe {
	return probe{value,
		func() error { return webhook.Validate(o) },
		func() error {
			m := memstore.New()
			key, _ := webhook.DeriveKey([]byte("0123456789abcdef0123456789abcdef"))
			webhook.NewEndpoints(m, m, key, o) // reads no option that can be refused
			return catch(func() { webhook.NewDispatcher(m, m, key, o) })
		}, refused}
}

func settings(value string, o devsettings.Option, refused bool) probe {
	return probe{value,
		func() error { return devsettings.Validate(o) },
		func() error {
			m := memstore.New()
			account := func(*http.Request) (devsettings.Account, bool) { return devsettings.Account{}, false }
			return catch(func() { devsettings.New(auth.NewKeys(auth.NewMemoryKeyStore(m)), m, account, o) })
		}, refused}
}

func sim(value string, o sandbox.Option, refused bool) probe {
	return probe{value,
		func() error { return sandbox.Validate(o) },
		func() error { return catch(func() { sandbox.New(memstore.New(), o) }) }, refused}
}

func client(value string, o statusclient.Option, refused bool) probe {
	return probe{value,
		func() error { return statusclient.Validate(o) },
		func() error { return catch(func() { statusclient.New("http://127.0.0.1/v1", "k", o) }) }, refused}
}

func otel(value string, o otelstatus.Option) probe {
	build := func() error { return catch(func() { otelstatus.Middleware(http.NotFoundHandler(), o) }) }
	return probe{value, build, build, false}
}

// options holds a row for every exported With... function of the module
// that returns an option type, keyed by its package's directory and name.
// TestOptionsPolicy fails when a function has no row, or a row no
// function: a new option gets its row here.
func options() map[string]row {
	const ok, refused = false, true
	now := func() time.Time { return time.Unix(0, 0) }
	return map[string]row{
		// statusapi
		"statusapi.WithPublicURL": {probes: []probe{
			api("zero", statusapi.WithPublicURL(""), ok),
			api("relative", statusapi.WithPublicURL("portal.example.com/api"), refused)}},
		"statusapi.WithPublicURLFunc": {probes: []probe{api("nil", statusapi.WithPublicURLFunc(nil), ok)}},
		"statusapi.WithSigningKey": {secret: true, probes: []probe{
			api("zero", statusapi.WithSigningKey([]byte("")), refused), // a secret: the exception to the zero rule
			api("short", statusapi.WithSigningKey([]byte("short")), refused),
			api("good", statusapi.WithSigningKey([]byte("0123456789abcdef0123456789abcdef")), ok)}},
		"statusapi.WithLinkTTL": {probes: []probe{
			api("zero", statusapi.WithLinkTTL(0), ok),
			api("negative", statusapi.WithLinkTTL(-time.Second), refused),
			api("under a second", statusapi.WithLinkTTL(time.Millisecond), refused)}},
		"statusapi.WithFiles":  {probes: []probe{api("nil", statusapi.WithFiles(nil), ok), api("memory", statusapi.WithFiles(files.NewMemory()), ok)}},
		"statusapi.WithLogger": {probes: []probe{api("nil", statusapi.WithLogger(nil), ok)}},
		"statusapi.WithClock":  {probes: []probe{api("nil", statusapi.WithClock(nil), ok)}},
		"statusapi.WithTimeout": {probes: []probe{
			api("zero", statusapi.WithTimeout(0), ok),
			api("negative", statusapi.WithTimeout(-time.Second), refused)}},
		"statusapi.WithResponseCache": {probes: []probe{
			api("zero", statusapi.WithResponseCache(0), ok),
			api("negative", statusapi.WithResponseCache(-1), refused)}},
		"statusapi.WithoutResponseCache": {probes: []probe{api("none", statusapi.WithoutResponseCache(), ok)}},
		//lint:ignore SA1012 nil is WithShutdown's documented default, probed here
		"statusapi.WithShutdown":   {probes: []probe{api("nil", statusapi.WithShutdown(nil), ok)}},
		"statusapi.WithObserver":   {probes: []probe{api("nil", statusapi.WithObserver(nil), ok)}},
		"statusapi.WithRequestLog": {probes: []probe{api("nil", statusapi.WithRequestLog(nil), ok)}},
		"statusapi.WithWebhookEndpoints": {probes: []probe{api("nil", statusapi.WithWebhookEndpoints(nil), ok),
			api("memory", statusapi.WithWebhookEndpoints(memstore.New()), ok)}},
		"statusapi.WithMCP": {probes: []probe{api("nil", statusapi.WithMCP(nil), ok),
			api("statusmcp", statusapi.WithMCP(statusmcp.Handler()), ok)}},
		"statusmcp.WithClock": {
			none: "the MCP handler's clock for tests; nil keeps time.Now (statusmcp.Handler takes no errors)"},
		"statusapi.WithCORS": {probes: []probe{api("none", statusapi.WithCORS(), ok)}},
		"statusapi.WithRecorderBuffer": {probes: []probe{
			recorder("zero", statusapi.WithRecorderBuffer(0), ok),
			recorder("negative", statusapi.WithRecorderBuffer(-1), refused)}},
		"statusapi.WithRecorderBatch": {probes: []probe{
			recorder("zero", statusapi.WithRecorderBatch(0), ok),
			recorder("negative", statusapi.WithRecorderBatch(-1), refused)}},
		"statusapi.WithRecorderFlushInterval": {probes: []probe{
			recorder("zero", statusapi.WithRecorderFlushInterval(0), ok),
			recorder("negative", statusapi.WithRecorderFlushInterval(-time.Second), refused)}},
		"statusapi.WithRecorderPruneInterval": {probes: []probe{
			recorder("zero", statusapi.WithRecorderPruneInterval(0), ok),
			recorder("negative", statusapi.WithRecorderPruneInterval(-time.Second), refused)}},
		"statusapi.WithRecorderLogger": {probes: []probe{recorder("nil", statusapi.WithRecorderLogger(nil), ok)}},

		// auth
		"auth.WithClock":  {probes: []probe{authOpt("nil", auth.WithClock(nil), ok)}},
		"auth.WithLogger": {probes: []probe{authOpt("nil", auth.WithLogger(nil), ok)}},
		"auth.WithFlushInterval": {probes: []probe{
			authOpt("zero", auth.WithFlushInterval(0), ok),
			authOpt("negative", auth.WithFlushInterval(-time.Second), refused)}},
		"auth.WithCacheTTL": {probes: []probe{
			authOpt("zero", auth.WithCacheTTL(0), ok),
			authOpt("negative", auth.WithCacheTTL(-time.Second), refused)}},
		"auth.WithMaxEntries": {probes: []probe{
			authOpt("zero", auth.WithMaxEntries(0), ok),
			authOpt("negative", auth.WithMaxEntries(-1), refused)}},
		"auth.WithInvalidations":    {probes: []probe{authOpt("nil", auth.WithInvalidations(nil), ok)}},
		"auth.WithPublisher":        {probes: []probe{authOpt("nil", auth.WithPublisher(nil), ok)}},
		"auth/authtest.WithDump":    {none: "a conformance suite's hook, not configuration: nil skips the dump check (RunKeyStore needs a *testing.T and a store)"},
		"auth/jwtauth.WithOrgClaim": {probes: []probe{jwt("zero", jwtauth.WithOrgClaim(""), ok)}},
		"auth/jwtauth.WithLeeway": {probes: []probe{
			jwt("zero", jwtauth.WithLeeway(0), ok),
			jwt("negative", jwtauth.WithLeeway(-time.Second), refused),
			jwt("over MaxLeeway", jwtauth.WithLeeway(jwtauth.MaxLeeway+time.Second), refused)}},
		"auth/jwtauth.WithClock":           {probes: []probe{jwt("nil", jwtauth.WithClock(nil), ok)}},
		"auth/redisinvalidate.WithChannel": {probes: []probe{channel("zero", redisinvalidate.WithChannel(""))}},
		"auth/redisinvalidate.WithLogger":  {probes: []probe{channel("nil", redisinvalidate.WithLogger(nil))}},

		// ratelimit (redislimit.New takes the same options)
		"ratelimit.WithRate": {probes: []probe{
			limiter("zero (Unlimited)", ratelimit.WithRate(store.PlanStarter, ratelimit.Rate{}), ok),
			limiter("negative", ratelimit.WithRate(store.PlanStarter, ratelimit.Rate{Limit: -1}), refused),
			limiter("no plan", ratelimit.WithRate("", ratelimit.Rate{Limit: 1}), refused)}},
		"ratelimit.WithTimeout": {probes: []probe{
			limiter("zero", ratelimit.WithTimeout(0), ok),
			limiter("negative", ratelimit.WithTimeout(-time.Second), refused)}},
		"ratelimit.WithOutageBackoff": {probes: []probe{
			limiter("zero", ratelimit.WithOutageBackoff(0), ok),
			limiter("negative", ratelimit.WithOutageBackoff(-time.Second), refused)}},
		"ratelimit.WithOutagePolicy": {probes: []probe{
			limiter("zero (FailOpen)", ratelimit.WithOutagePolicy(0), ok),
			limiter("unknown", ratelimit.WithOutagePolicy(7), refused)}},
		"ratelimit.WithPrefix":             {probes: []probe{limiter("zero", ratelimit.WithPrefix(""), ok)}},
		"ratelimit.WithNonBlockingCounter": {probes: []probe{limiter("none", ratelimit.WithNonBlockingCounter(), ok)}},
		"ratelimit.WithLogger":             {probes: []probe{limiter("nil", ratelimit.WithLogger(nil), ok)}},
		"ratelimit.WithClock":              {probes: []probe{limiter("nil", ratelimit.WithClock(nil), ok)}},

		// store
		"memstore.WithClock": {probes: []probe{memory("nil", memstore.WithClock(nil)), memory("fixed", memstore.WithClock(now))}},
		"bunstore.WithQueryTimeout": {probes: []probe{
			bunOpt("zero", bunstore.WithQueryTimeout(0), ok),
			bunOpt("negative", bunstore.WithQueryTimeout(-time.Second), refused)}},
		"bunstore.WithSchema": {probes: []probe{
			bunOpt("zero", bunstore.WithSchema(""), ok),
			bunOpt("not an identifier", bunstore.WithSchema("Bad Name"), refused)}},
		"bunstore.WithLogger":       {probes: []probe{bunOpt("nil", bunstore.WithLogger(nil), ok)}},
		"bunstore.WithListenConfig": {probes: []probe{bunOpt("nil", bunstore.WithListenConfig(nil), ok)}},
		"bunstore.WithClock":        {probes: []probe{bunOpt("nil", bunstore.WithClock(nil), ok)}},
		"bunstore.WithStatementTimeout": {probes: []probe{
			open("zero", bunstore.WithStatementTimeout(0), ok),
			open("negative", bunstore.WithStatementTimeout(-time.Second), refused),
			open("under a millisecond", bunstore.WithStatementTimeout(time.Microsecond), refused)}},

		// webhook
		"webhook.WithSchedule": {probes: []probe{
			hook("nil", webhook.WithSchedule(nil), ok),
			hook("zero delay", webhook.WithSchedule([]time.Duration{0}), refused),
			hook("negative delay", webhook.WithSchedule([]time.Duration{-time.Second}), refused)}},
		"webhook.WithAllowLocal": {probes: []probe{hook("zero", webhook.WithAllowLocal(false), ok)}},
		"webhook.WithClock":      {probes: []probe{hook("nil", webhook.WithClock(nil), ok)}},
		"webhook.WithPollInterval": {probes: []probe{
			hook("zero", webhook.WithPollInterval(0), ok),
			hook("negative", webhook.WithPollInterval(-time.Second), refused)}},
		"webhook.WithClaimExpiry": {probes: []probe{
			hook("zero", webhook.WithClaimExpiry(0), ok),
			hook("negative", webhook.WithClaimExpiry(-time.Second), refused)}},
		"webhook.WithConcurrency": {probes: []probe{
			hook("zero", webhook.WithConcurrency(0), ok),
			hook("negative", webhook.WithConcurrency(-1), refused)}},
		"webhook.WithTimeout": {probes: []probe{
			hook("zero", webhook.WithTimeout(0), ok),
			hook("negative", webhook.WithTimeout(-time.Second), refused)}},
		"webhook.WithObserver": {probes: []probe{hook("nil", webhook.WithObserver(nil), ok)}},
		"webhook.WithLogger":   {probes: []probe{hook("nil", webhook.WithLogger(nil), ok)}},
		"webhook.WithLeader":   {probes: []probe{hook("nil", webhook.WithLeader(nil), ok)}},

		// sandbox
		"sandbox.WithInterval": {probes: []probe{
			sim("zero", sandbox.WithInterval(0), ok),
			sim("negative", sandbox.WithInterval(-time.Second), refused)}},
		"sandbox.WithChanges": {probes: []probe{
			sim("zero", sandbox.WithChanges(0), ok),
			sim("negative", sandbox.WithChanges(-1), refused)}},
		"sandbox.WithSeed":   {probes: []probe{sim("zero", sandbox.WithSeed(0), ok)}},
		"sandbox.WithClock":  {probes: []probe{sim("nil", sandbox.WithClock(nil), ok)}},
		"sandbox.WithLogger": {probes: []probe{sim("nil", sandbox.WithLogger(nil), ok)}},

		// devsettings
		"devsettings.WithWebhooks":   {probes: []probe{settings("nil", devsettings.WithWebhooks(nil), ok)}},
		"devsettings.WithRequestLog": {probes: []probe{settings("nil", devsettings.WithRequestLog(nil), ok)}},
		"devsettings.WithLimiter":    {probes: []probe{settings("nil", devsettings.WithLimiter(nil), ok)}},
		"devsettings.WithSandbox":    {probes: []probe{settings("nil", devsettings.WithSandbox(nil), ok)}},
		"devsettings.WithChangeHook": {probes: []probe{settings("nil", devsettings.WithChangeHook(nil), ok)}},
		"devsettings.WithLogger":     {probes: []probe{settings("nil", devsettings.WithLogger(nil), ok)}},
		"devsettings.WithClock":      {probes: []probe{settings("nil", devsettings.WithClock(nil), ok)}},
		"devsettings.WithFrameAncestors": {probes: []probe{
			settings("none", devsettings.WithFrameAncestors(), ok),
			settings("not an origin", devsettings.WithFrameAncestors("portal.example.com"), refused)}},
		"devsettings.WithPrefix": {probes: []probe{
			settings("zero", devsettings.WithPrefix(""), ok),
			settings("relative", devsettings.WithPrefix("settings"), refused)}},

		// statusclient
		"statusclient.WithHTTPClient": {probes: []probe{client("nil", statusclient.WithHTTPClient(nil), ok)}},
		"statusclient.WithUserAgent":  {probes: []probe{client("zero", statusclient.WithUserAgent(""), ok)}},
		"statusclient.WithRetry": {probes: []probe{
			client("zero", statusclient.WithRetry(0, 0), ok),
			client("negative attempts", statusclient.WithRetry(-1, 0), refused),
			client("negative wait", statusclient.WithRetry(0, -time.Second), refused)}},
		"statusclient.WithSleep":  {probes: []probe{client("nil", statusclient.WithSleep(nil), ok)}},
		"statusclient.WithLogger": {probes: []probe{client("nil", statusclient.WithLogger(nil), ok)}},

		// otelstatus
		"otelstatus.WithTracerProvider": {probes: []probe{otel("nil", otelstatus.WithTracerProvider(nil))}},
		"otelstatus.WithMeterProvider":  {probes: []probe{otel("nil", otelstatus.WithMeterProvider(nil))}},
		"otelstatus.WithPropagator":     {probes: []probe{otel("nil", otelstatus.WithPropagator(nil))}},
		"otelstatus.WithOrgAttribute":   {probes: []probe{otel("zero", otelstatus.WithOrgAttribute(false))}},

		// internal test harnesses
		"internal/test/apitest.WithLimiterOptions": {none: "a test harness's setting, not configuration"},
		"internal/test/apitest.WithHandlerOptions": {none: "a test harness's setting, not configuration"},
		"internal/test/apitest.WithStoreWrapper":   {none: "a test harness's setting, not configuration"},
		"internal/test/apitest.WithResolver":       {none: "a test harness's setting, not configuration"},
		"internal/test/apitest.WithStart":          {none: "a test harness's setting, not configuration"},
		"internal/test/apitest.WithCheck":          {none: "a test harness's setting, not configuration"},
		"storetest.WithClock":                      {none: "a test suite's setting, not configuration"},
	}
}

// nilOptions gives a nil option to every constructor that takes options:
// the policy ignores it.
var nilOptions = []probe{
	api("nil Option", nil, false), recorder("nil Option", nil, false),
	authOpt("nil Option", nil, false), jwt("nil Option", nil, false), channel("nil Option", nil),
	limiter("nil Option", nil, false), memory("nil Option", nil),
	bunOpt("nil Option", nil, false), open("nil Option", nil, false),
	hook("nil Option", nil, false), sim("nil Option", nil, false), settings("nil Option", nil, false),
	client("nil Option", nil, false), otel("nil Option", nil),
	{"nil Option to statusapi.Routes", func() error { return nil }, func() error {
		return catch(func() { statusapi.Routes(nil) })
	}, false},
}

// TestOptionsPolicy checks every option of the module against the one
// policy of package option: nil and zero values keep the default, a value
// no default stands for is an *option.Error naming the option, from the
// package's Validate and its constructor alike, and no option panics.
// Its table is complete by construction: the module's With... functions
// are found by parsing its source.
func TestOptionsPolicy(t *testing.T) {
	table := options()
	found := withFunctions(t)
	for _, name := range found {
		if _, ok := table[name]; !ok {
			t.Errorf("%s has no row in options(): add one, with its nil, zero and negative values", name)
		}
	}
	for name := range table {
		if !slices.Contains(found, name) {
			t.Errorf("options() has a row for %s, which the module does not define", name)
		}
	}
	for name, r := range table {
		if r.none != "" {
			continue
		}
		pkg, fn, _ := strings.Cut(path.Base(name), ".")
		if len(r.probes) == 0 {
			t.Errorf("%s: a row without probes must say why (none)", name)
		}
		// The rule: the zero value of the argument sets the default, so
		// every row probes it, and never as refused; a secret's is refused.
		if !slices.ContainsFunc(r.probes, func(p probe) bool { return zeroProbe(p.value) && p.refused == r.secret }) {
			t.Errorf("%s: no probe of the zero value (nil, zero, none) that keeps the default (refused, for a secret)", name)
		}
		for _, p := range r.probes {
			t.Run(name+"/"+p.value, func(t *testing.T) {
				is := is.New(t)
				for _, err := range []error{p.validate(), p.build()} {
					if !p.refused {
						is.NoErr(err) // the policy keeps the default, or takes the value
						continue
					}
					var oe *option.Error
					is.True(errors.As(err, &oe)) // a refused value is an *option.Error
					is.Equal(oe.Package, pkg)    // naming the package
					is.Equal(oe.Option, fn)      // and the option
				}
			})
		}
	}
	for _, p := range nilOptions {
		is := is.New(t)
		is.NoErr(p.validate()) // a nil Option is ignored
		is.NoErr(p.build())
	}
}

// zeroProbe reports whether a probe's value is the zero value of the
// option's argument (or the option takes none).
func zeroProbe(value string) bool {
	for _, z := range []string{"nil", "zero", "none"} {
		if value == z || strings.HasPrefix(value, z+" (") {
			return true
		}
	}
	return false
}

// withFunctions returns the module's exported functions named With...
// that return an option type (a type whose name ends in Option), as
// "dir.Name" from the module's root ("statusapi.WithLogger",
// "bunstore.WithSchema"), from its non-test Go files.
func withFunctions(t *testing.T) []string {
	t.Helper()
	var names []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !fn.Name.IsExported() || !strings.HasPrefix(fn.Name.Name, "With") {
				continue
			}
			if res := fn.Type.Results; res == nil || len(res.List) != 1 || !strings.HasSuffix(typeName(res.List[0].Type), "Option") {
				continue
			}
			names = append(names, filepath.ToSlash(filepath.Dir(p))+"."+fn.Name.Name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 50 {
		t.Fatalf("found %d With... functions: the search is broken", len(names))
	}
	return names
}

// typeName is the name of a result type: Option, ratelimit.Option.
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}
