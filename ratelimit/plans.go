package ratelimit

import (
	"time"

	"github.com/clientstatus/clientstatus/auth"
)

// Rate is a plan's budget: Limit requests per Period, in fixed windows that
// start with an organization's first request. A Rate whose Limit is 0 or
// less is unlimited.
type Rate struct {
	Limit  int64
	Period time.Duration
}

// Unlimited is the Rate of a plan without a limit (enterprise).
var Unlimited = Rate{}

// DefaultRates returns the contract's budgets: starter 60 and growth 300
// requests a minute, enterprise unlimited. The map is a fresh copy.
func DefaultRates() map[auth.Plan]Rate {
	return map[auth.Plan]Rate{
		auth.PlanStarter:    {Limit: 60, Period: time.Minute},
		auth.PlanGrowth:     {Limit: 300, Period: time.Minute},
		auth.PlanEnterprise: Unlimited,
	}
}

// rateOf returns the plan whose budget p gets, and that budget. A plan the
// limiter does not know is held to the starter budget: an unexpected value
// in an account record must never lift the limit.
func (l *PlanLimiter) rateOf(p auth.Plan) (auth.Plan, Rate) {
	if r, ok := l.rates[p]; ok {
		return p, r
	}
	return auth.PlanStarter, l.rates[auth.PlanStarter]
}
