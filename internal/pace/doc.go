// Package pace paces log lines about repeated events, so that an outage
// under load costs a few lines, not one per failed attempt.
package pace
