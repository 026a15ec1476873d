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
type Proxy struct {
	t      testing.TB
	target string
	addr   string

	mu        sync.Mutex
	ln        net.Listener // nil while cut
	blackhole bool
	conns     map[net.Conn]struct{}
}

// NewProxy starts a proxy to target (host:port) on a free local port. It
// is cut when the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	p := &Proxy{t: t, target: target, addr: "127.0.0.1:0", conns: map[net.Conn]struct{}{}}
	p.mu.Lock()
	p.listen()
	p.mu.Unlock()
	t.Cleanup(p.Cut)
	return p
}

// Addr is the host:port clients connect to; it stays the same across Cut
// and Restore.
func (p *Proxy) Addr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addr
}

// Cut drops every connection and refuses new ones.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	p.dropConns()
}

// Blackhole stops answering: open connections stay open but carry nothing
// more, new ones are accepted and never answered.
func (p *Proxy) Blackhole() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.blackhole = true
}

// Restore forwards to the service again, on the same address. Connections
// opened before are dropped, so clients reconnect.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.blackhole = false
	p.dropConns()
	if p.ln == nil {
		p.listen()
	}
}

// listen (re)opens the listener on p.addr; p.mu is held.
func (p *Proxy) listen() {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("testenv: proxy: listen: %v", err)
	}
	p.ln, p.addr = ln, ln.Addr().String()
	go p.serve(ln)
}

func (p *Proxy) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.ln != ln { // cut meanwhile
			p.mu.Unlock()
			c.Close()
			return
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
