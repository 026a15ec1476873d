// Package accesslog is the request log of the module's commands
// (examples/server, and tools/bench, which measures the library as the
// server runs it): one line per request, with its method, path, status,
// bytes, duration and request id.
package accesslog
