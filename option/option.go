// Package option states the one policy that every option of this module
// follows, and holds Error, the configuration error that reports a value
// the policy refuses. It imports only the standard library.
//
// # The policy
//
// Every package configures its constructors with functional options
// (statusapi.Option, ratelimit.Option, webhook.Option, ...), and every
// option, in every package, follows one rule:
//
//  1. A nil Option is ignored, by every function that takes options
//     (statusapi.Routes included).
//  2. The zero value of an option's argument (nil, 0, "", false, an
//     empty slice) sets the option's documented default, exactly as if
//     the option were left out; options apply in order, so a later zero
//     undoes an earlier value. There is no exception: zero never means
//     "off", "unlimited" or "refused". A feature that is off by default
//     (statusapi.WithRequestLog, WithWebhookEndpoints, WithMCP) is on
//     only when given a non-zero value; one that is on by default is
//     turned off by an option of its own (statusapi.WithoutResponseCache).
//     An option that adds to a list (statusapi.WithObserver, WithCORS,
//     auth.WithInvalidations) adds nothing given zero.
//  3. Any other value that no default stands for (a negative duration or
//     size, a value out of its documented range, a malformed name) is a
//     configuration error, and only that. An option never panics: it
//     records the error, and the constructor reports the first one as an
//     *Error naming the option. A constructor that returns an error
//     (jwtauth.New, bunstore.Open) returns it; one that does not panics
//     with the *Error itself, and its package has a Validate function
//     that returns the same error without building anything. A
//     constructor reports only the options it reads.
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

import "fmt"

// Error is a configuration error: an option given a value that no
// default stands for. Constructors that panic on configuration panic with
// an *Error; Validate functions and constructors that return errors
// return one (possibly wrapped).
type Error struct {
	// Package is the name of the option's package, such as "statusapi"
	// or "redislimit".
	Package string
	// Option is the option's function name, such as "WithLinkTTL".
	Option string
	// Reason says what is wrong with the value, such as "-1s is
	// negative". It never holds a secret.
	Reason string
}

// Error returns "package: Option: reason".
func (e *Error) Error() string {
	return e.Package + ": " + e.Option + ": " + e.Reason
}

// Errorf returns an *Error for the option of pkg, its reason formatted
// as fmt.Sprintf does.
func Errorf(pkg, option, format string, args ...any) *Error {
	return &Error{Package: pkg, Option: option, Reason: fmt.Sprintf(format, args...)}
}

// Check records the first configuration error among a constructor's
// options. A package's private configuration embeds it; its options call
// Refuse, and the constructor reads Err once every option has run. The
// zero Check holds no error.
type Check struct {
	first *Error
}

// Refuse records an *Error for the option of pkg, unless one was recorded
// before: the first error is the one reported.
func (c *Check) Refuse(pkg, option, format string, args ...any) {
	if c.first == nil {
		c.first = Errorf(pkg, option, format, args...)
	}
}

// Err returns the first error recorded, or nil.
func (c *Check) Err() error {
	if c.first == nil {
		return nil
	}
	return c.first
}

// Apply runs each non-nil option of opts on c, in order: the first rule
// of the policy in one place.
func Apply[C any, O ~func(*C)](c *C, opts []O) {
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
}

// NonNegative applies the policy to an option that takes a count, a size
// or a duration: it sets *field to v when v is positive, to def, the
// option's documented default, when v is 0 (so that a later zero undoes
// an earlier value), and records an *Error for the option of pkg when v
// is negative, leaving *field as it was.
func NonNegative[T ~int | ~int64](c *Check, pkg, option string, field *T, v, def T) {
	switch {
	case v < 0:
		c.Refuse(pkg, option, "%v is negative", v)
	case v == 0:
		*field = def
	default:
		*field = v
	}
}
