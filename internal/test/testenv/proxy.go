package testenv

import (
	"net"
	"sync"
	"testing"
)

// Proxy is a TCP proxy between a client and a real service (PostgreSQL,
// Redis) that a test can cut (the service stopped: connections dropped and
// refused) or blackhole (the service hung: connections stay open and new
// ones are accepted, but nothing is answered), then restore. Tests use it
// to simulate an outage without touching the machine's service, which
// other packages' tests use at the same time.
//
// It keeps its port from NewProxy to the end of the test, cut or not: a
// cut proxy accepts a connection and closes it at once. Were it to close
// its listener, another test (or process) could be given the port
// meanwhile, and a client of this one, reconnecting during the outage,
// would reach that other proxy's service: an outage that was not one.
type Proxy struct {
	t      testing.TB
	target string
	ln     net.Listener // for the proxy's whole life

	mu        sync.Mutex
	cut       bool
	blackhole bool
	conns     map[net.Conn]struct{}
}

// NewProxy starts a proxy to target (host:port) on a free local port. It
// is cut, and its port given back, when the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testenv: proxy: listen: %v", err)
	}
	p := &Proxy{t: t, target: target, ln: ln, conns: map[net.Conn]struct{}{}}
	go p.serve()
	t.Cleanup(func() {
		p.Cut()
		ln.Close()
	})
	return p
}

// Addr is the host:port clients connect to; it stays the same across Cut
// and Restore.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut drops every connection and refuses new ones (each is closed as soon
// as it is accepted).
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	p.dropConns()
}

// Blackhole stops answering: open connections stay open but carry nothing
// more, new ones are accepted and never answered.
func (p *Proxy) Blackhole() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.blackhole = true
}

// Restore forwards to the service again. Connections opened before are
// dropped, so clients reconnect.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut, p.blackhole = false, false
	p.dropConns()
}

// serve accepts connections until the listener closes, and forwards each
// to the service unless the proxy is cut (closed at once) or blackholed
// (kept, never answered).
func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns[c] = struct{}{}
		hole := p.blackhole
		p.mu.Unlock()
		if hole {
			continue // accepted, never answered
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.cut { // cut while dialling: c is closed already
			p.mu.Unlock()
			up.Close()
			continue
		}
		p.conns[up] = struct{}{}
		p.mu.Unlock()
		go p.pipe(up, c)
		go p.pipe(c, up)
	}
}

// pipe copies src to dst until either side closes; while the proxy is
// blackholed, what it reads is dropped.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			return
		}
		p.mu.Lock()
		hole := p.blackhole
		p.mu.Unlock()
		if hole {
			continue
		}
		if _, err := dst.Write(buf[:n]); err != nil {
			return
		}
	}
}

// dropConns closes every connection; p.mu is held.
func (p *Proxy) dropConns() {
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}
