// Package option states the one policy that every option of this module
// follows, and holds Error, the configuration error that reports a value
// the policy refuses. It imports only the standard library.
//
// # The policy
//
//  1. A nil Option is ignored, in every constructor that takes options.
//  2. An option given nil (a logger, a clock, an observer, an HTTP client)
//     keeps its documented default; WithLogger(nil) means the package's
//     default logger, slog.Default() unless the option's doc names another.
//  3. An option given its type's zero value (0, "", false) keeps the
//     documented default, unless its doc says why the zero value is
//     refused (statusapi.WithSigningKey: an empty key is what an unset
//     environment variable gives).
//  4. A value no default stands for (a negative duration or size, a value
//     out of its documented range) is a configuration error. An option
//     never panics: the constructor reports the first such error as an
//     *Error naming the option, returned where the constructor returns an
//     error, else its panic value; the package's Validate returns the same
//     error without building anything.
//  5. A constructor reports only the options it reads.
//
// Required dependencies are positional arguments, not options: a nil one
// makes the constructor panic with a plain message, as it is a mistake in
// the code rather than in configuration.
//
// Each package that logs takes a WithLogger option, whose default is
// slog.Default() (webhook's logs nothing unless told): call slog.SetDefault
// once, or pass the same *slog.Logger to each. No part logs an API key, a
// token or a signing secret.
//
// A program maps an *Error to the setting it came from with errors.As,
// never by matching the message:
//
//	var oe *option.Error
//	if errors.As(err, &oe) && oe.Package == "statusapi" && oe.Option == "WithLinkTTL" {
//		return fmt.Errorf("-link-ttl: %w", err)
//	}
package option
