// Package option states the one policy that every option of this module
// follows, and holds Error, the configuration error that reports a value
// the policy refuses. It imports only the standard library.
//
// # The policy
//
//  1. A nil Option is ignored by every function that takes options
//     (statusapi.Routes included).
//  2. The zero value of an option's argument (nil, 0, "", false, an empty
//     slice) sets the option's documented default, exactly as if the
//     option were left out; options apply in order, so a later zero undoes
//     an earlier value. Zero never means "off" or "unlimited": a feature
//     off by default (statusapi.WithRequestLog, WithWebhookEndpoints,
//     WithMCP) is on only given a non-zero value; one on by default is
//     turned off by an option of its own (statusapi.WithoutResponseCache).
//     An option that adds to a list adds nothing given zero.
//  3. Secrets are the one exception: a key or secret (statusapi.
//     WithSigningKey, webhook.DeriveKey) shorter than 32 bytes, empty
//     included, is refused, as an empty one is what an unset environment
//     variable gives.
//  4. Any other value no default stands for (a negative duration or size,
//     a value out of its documented range) is a configuration error. An
//     option never panics: the constructor reports the first such error as
//     an *Error naming the option, returned where the constructor returns
//     an error, else its panic value; the package's Validate returns the
//     same error without building anything. A constructor reports only the
//     options it reads.
//
// Required dependencies are positional arguments, not options: a nil one
// makes the constructor panic with a plain message. Each package that logs
// takes WithLogger (default slog.Default(); webhook's logs nothing unless
// told). No part logs an API key, a token or a signing secret.
//
// A program maps an *Error to its setting with errors.As, never by the
// message:
//
//	var oe *option.Error
//	if errors.As(err, &oe) && oe.Package == "statusapi" && oe.Option == "WithLinkTTL" {
//		return fmt.Errorf("-link-ttl: %w", err)
//	}
package option
