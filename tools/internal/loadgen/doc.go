// Package loadgen sends HTTP requests from concurrent clients for a while:
// the load of tools/load, and of tools/bench's built-in generator and
// production workload.
package loadgen
