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
