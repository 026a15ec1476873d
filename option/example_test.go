package option_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/clientstatus/clientstatus/option"
	"github.com/clientstatus/clientstatus/ratelimit"
)

// A program that builds options from its flags maps a refused option back
// to its flag by the option's package and name, never by its message.
func ExampleError() {
	flags := map[[2]string]string{
		{"ratelimit", "WithTimeout"}: "-redis-timeout",
	}
	wait := -time.Second // from a flag
	err := ratelimit.Validate(ratelimit.WithTimeout(wait))
	var oe *option.Error
	if errors.As(err, &oe) {
		err = fmt.Errorf("%s %v: %w", flags[[2]string{oe.Package, oe.Option}], wait, err)
	}
	fmt.Println(err)
	// Output: -redis-timeout -1s: ratelimit: WithTimeout: -1s is negative
}

// NonNegative is the rule of every count, size and duration option: 0
// means the default, a negative value is refused and changes nothing.
func ExampleNonNegative() {
	var c option.Check
	ttl := 5 * time.Minute
	option.NonNegative(&c, "mypkg", "WithTTL", &ttl, 0, time.Minute)
	fmt.Println(ttl, c.Err())
	option.NonNegative(&c, "mypkg", "WithTTL", &ttl, -time.Second, time.Minute)
	fmt.Println(ttl, c.Err())
	// Output:
	// 1m0s <nil>
	// 1m0s mypkg: WithTTL: -1s is negative
}
