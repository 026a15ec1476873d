module github.com/clientstatus/clientstatus/examples/mounting

go 1.26.0

require (
	github.com/clientstatus/clientstatus v0.0.0
	github.com/go-chi/chi/v5 v5.5.0
	github.com/labstack/echo/v4 v4.16.0
	github.com/matryer/is v1.4.1
)

require (
	github.com/labstack/gommon v0.5.0 // indirect
	github.com/mattn/go-colorable v0.1.15 // indirect
	github.com/mattn/go-isatty v0.0.22 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	github.com/valyala/fasttemplate v1.2.2 // indirect
	golang.org/x/crypto v0.53.0 // indirect
	golang.org/x/net v0.56.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)

replace github.com/clientstatus/clientstatus => ../..
