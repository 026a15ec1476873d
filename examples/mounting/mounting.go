package mounting

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/labstack/echo/v4"
)

// docs/library.md's snippets: each mounts api, a statusapi handler, under /api.

func mountWithChi(r chi.Router, api http.Handler) {
	// chi's Mount does not strip the prefix: without StripPrefix the
	// handler sees /api/v1/... and answers 404.
	r.Mount("/api", http.StripPrefix("/api", api))
}

func mountWithEcho(e *echo.Echo, api http.Handler) {
	e.Any("/api/*", echo.WrapHandler(http.StripPrefix("/api", api)))
}
