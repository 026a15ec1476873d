// Package revoketest holds what the tests of revocation across replicas
// share: a Replica (a status API handler with its own auth.Keys and
// auth.Cache, as one process of a deployment runs them), a way to wait for
// a replica to answer a status within a deadline, and the outage scenario
// that every channel between replicas (PostgreSQL, Redis) must pass.
package revoketest
