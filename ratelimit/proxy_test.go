package ratelimit_test

import (
	"io"
	"net"
	"sync"
	"testing"
)

// proxy is a TCP proxy between a Redis client and Redis that a test can cut
// (Redis stopped: connections refused) or blackhole (Redis hung: connections
// accepted, never answered), then restore. It never touches the real Redis,
// which other packages' tests use at the same time.
type proxy struct {
	t      *testing.T
	target string
	addr   string

	mu        sync.Mutex
	ln        net.Listener // nil while cut
	blackhole bool
	conns     map[net.Conn]struct{}
}

func newProxy(t *testing.T, target string) *proxy {
	p := &proxy{t: t, target: target, addr: "127.0.0.1:0", conns: map[net.Conn]struct{}{}}
	p.mu.Lock()
	p.listen()
	p.mu.Unlock()
	t.Cleanup(p.Cut)
	return p
}

// Addr is where clients connect.
func (p *proxy) Addr() string { return p.addr }

// listen (re)opens the listener on p.addr; p.mu is held.
func (p *proxy) listen() {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("proxy: listen: %v", err)
	}
	p.ln, p.addr = ln, ln.Addr().String()
	go p.serve(ln)
}

func (p *proxy) serve(ln net.Listener) {
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
			go io.Copy(io.Discard, c) //nolint:errcheck // read, never answer
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[up] = struct{}{}
		p.mu.Unlock()
		go pipe(c, up)
		go pipe(up, c)
	}
}

func pipe(dst, src net.Conn) {
	io.Copy(dst, src) //nolint:errcheck // ends when either side closes
	dst.Close()
	src.Close()
}

// dropConns closes every proxied connection; p.mu is held.
func (p *proxy) dropConns() {
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// Cut stops the proxy: open connections drop, new ones are refused.
func (p *proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	p.dropConns()
}

// Blackhole makes the proxy accept connections and never answer; open
// connections drop.
func (p *proxy) Blackhole() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.blackhole = true
	p.dropConns()
}

// Restore makes the proxy forward to Redis again, on the same address.
func (p *proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.blackhole = false
	p.dropConns()
	if p.ln == nil {
		p.listen()
	}
}
