package ratelimit

import (
	"time"

	"github.com/clientstatus/clientstatus/store"
)

// Rate is a plan's budget: Limit requests per Period, in fixed windows that
// start with an organization's first request. A Rate whose Limit is 0 is
// unlimited; a negative Limit or Period is invalid (see WithRate).
type Rate struct {
	Limit  int64
	Period time.Duration
}

// Unlimited is the Rate of a plan without a limit (enterprise).
var Unlimited = Rate{}

// DefaultRates returns the contract's budgets: starter 60 and growth 300
// requests a minute, enterprise unlimited. The map is a fresh copy.
func DefaultRates() map[store.Plan]Rate {
	return map[store.Plan]Rate{
		store.PlanStarter:    {Limit: 60, Period: time.Minute},
		store.PlanGrowth:     {Limit: 300, Period: time.Minute},
		store.PlanEnterprise: Unlimited,
	}
}

// rateOf returns the plan whose budget p gets, and that budget. A plan the
// limiter does not know is held to the starter budget: an unexpected value
// in an account record must never lift the limit.
func (l *PlanLimiter) rateOf(p store.Plan) (store.Plan, Rate) {
	if r, ok := l.cfg.rates[p]; ok {
		return p, r
	}
	return store.PlanStarter, l.cfg.rates[store.PlanStarter]
}
