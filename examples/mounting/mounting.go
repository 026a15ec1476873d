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

// docs/settings.md's chi snippet: the developer settings (package
// devsettings) under /settings, behind the portal's sign-in middleware.

func mountSettingsWithChi(r chi.Router, settings http.Handler, requireSignIn func(http.Handler) http.Handler) {
	r.With(requireSignIn).Mount("/settings", http.StripPrefix("/settings", settings))
}
