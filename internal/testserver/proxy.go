package testserver

import (
	"net"
	"sync"
	"testing"
)

// Proxy is a loopback TCP proxy in front of a server whose connections a
// test can cut or stall, to simulate network faults between a client and
// the server without touching the server.
type Proxy struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	cut     bool                  // refuse connections until Heal
	stalled chan struct{}         // non-nil while stalled; closed by Heal
	conns   map[net.Conn]struct{} // both ends of every forwarded pair
	wg      sync.WaitGroup
	closed  bool
}

// NewProxy listens on a free loopback port and forwards every connection to
// target. It is closed when the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.Close)
	return p
}

// Addr is the address clients dial instead of the server's.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every open connection and refuses new ones (accepted and
// closed at once) until Heal: the client sees resets, fast.
func (p *Proxy) Cut() {
	p.mu.Lock()
	p.cut = true
	p.closeConnsLocked()
	p.mu.Unlock()
}

// Stall stops forwarding in both directions, on open and new connections,
// until Heal: the client sees silence and must rely on its own timeouts,
// like a network partition that drops packets.
func (p *Proxy) Stall() {
	p.mu.Lock()
	if p.stalled == nil {
		p.stalled = make(chan struct{})
	}
	p.mu.Unlock()
}

// Heal undoes Cut and Stall; stalled data is delivered late.
func (p *Proxy) Heal() {
	p.mu.Lock()
	p.cut = false
	if p.stalled != nil {
		close(p.stalled)
		p.stalled = nil
	}
	p.mu.Unlock()
}

// Close stops the proxy and closes all its connections.
func (p *Proxy) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.ln.Close()
	p.closeConnsLocked()
	if p.stalled != nil {
		close(p.stalled)
		p.stalled = nil
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *Proxy) closeConnsLocked() {
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// gate blocks while the proxy is stalled; it reports false once the proxy
// is closed.
func (p *Proxy) gate() bool {
	for {
		p.mu.Lock()
		st, closed := p.stalled, p.closed
		p.mu.Unlock()
		if closed {
			return false
		}
		if st == nil {
			return true
		}
		<-st
	}
}

func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.cut {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			continue
		}
		p.wg.Add(1)
		go p.serve(c)
	}
}

func (p *Proxy) serve(c net.Conn) {
	defer p.wg.Done()
	if !p.gate() {
		c.Close()
		return
	}
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	if !p.track(s) {
		c.Close()
		return
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.pipe(s, c) }()
	go func() { defer wg.Done(); p.pipe(c, s) }()
	wg.Wait()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, s)
	p.mu.Unlock()
}

// pipe copies src to dst, waiting at the gate before every write, and
// closes both when either side ends.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32*1024)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.gate() {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return // EOF or a closed connection: the pair is done
		}
	}
}
