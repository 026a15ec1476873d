// Package option states the one policy that every option of this module
// follows, and holds Error, the configuration error that reports a value
// the policy refuses. It imports only the standard library.
//
// # The policy
//
// Every package configures its constructors with functional options
// (statusapi.Option, ratelimit.Option, webhook.Option, ...), and all of
// them follow the same rules:
//
//  1. A nil Option is ignored, in every constructor that takes options.
//  2. An option given nil (a logger, a clock, an observer, an HTTP client,
//     a provider) keeps the option's documented default. In particular
//     WithLogger(nil) means the package's default logger, slog.Default()
//     unless the option's doc names another.
//  3. An option given its type's zero value (0, "", false) keeps the
//     documented default, unless its doc says why the zero value is
//     refused (statusapi.WithSigningKey: an empty key is what an unset
//     environment variable gives).
//  4. A value that no default stands for (a negative duration or size, a
//     value out of its documented range, a malformed name) is a
//     configuration error. An option never panics: it records the
//     error, and the constructor reports the first one as an *Error
//     naming the option. A constructor that returns an error
//     (jwtauth.New, bunstore.Open) returns it; one that does not panics
//     with the *Error itself, and its package has a Validate function
//     that returns the same error without building anything, for a
//     program that builds its options from configuration (flags,
//     environment) and wants a message rather than a panic.
//  5. A constructor reports only the options it reads: an option that a
//     constructor ignores (auth.WithCacheTTL given to auth.NewKeys) is
//     not checked there.
//
// Required dependencies are positional arguments, not options: a nil one
// makes the constructor panic with a plain message, as it is a mistake
// in the code rather than in configuration.
//
// # One logger
//
// Each package that logs takes a WithLogger option (statusapi,
// statusapi.WithRecorderLogger, auth, ratelimit, webhook, sandbox,
// store/bunstore, auth/redisinvalidate), and each one's default is
// slog.Default(), except webhook's, which logs nothing unless told. A
// portal sets one logger for every part either by calling
// slog.SetDefault once at start, or by passing the same *slog.Logger to
// each WithLogger, as examples/server does. No part logs an API key, a
// token or a signing secret.
//
// # Mapping errors to settings
//
// A program maps an *Error to the setting it came from with errors.As and
// the option's package and name, never by matching the message:
//
//	var oe *option.Error
//	if errors.As(err, &oe) && oe.Package == "statusapi" && oe.Option == "WithLinkTTL" {
//		return fmt.Errorf("-link-ttl: %w", err)
//	}
package option
