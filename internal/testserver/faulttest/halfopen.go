package faulttest

import (
	"net"
	"sync"
	"testing"
	"time"
)

// halfOpenProxy is a loopback TCP proxy that can freeze the connections
// open at one moment while new ones pass: a half-open connection left in a
// client's pool (the peer gone silent, no reset), which a pooled client
// routes around only if it stops waiting for it. Data read from a frozen
// connection is held and delivered when the freeze ends.
type halfOpenProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	pipes  map[*pipe]bool
	closed bool
}

// pipe is one proxied connection.
type pipe struct {
	client, server net.Conn
	mu             sync.Mutex
	thawed         *sync.Cond
	frozenUntil    time.Time
}

func newHalfOpenProxy(t *testing.T, target string) *halfOpenProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &halfOpenProxy{ln: ln, target: target, pipes: map[*pipe]bool{}}
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *halfOpenProxy) Addr() string { return p.ln.Addr().String() }

// freezeOpen freezes every connection open now for d; connections made
// later are not affected.
func (p *halfOpenProxy) freezeOpen(d time.Duration) int {
	until := time.Now().Add(d)
	p.mu.Lock()
	defer p.mu.Unlock()
	for pp := range p.pipes {
		pp.mu.Lock()
		pp.frozenUntil = until
		pp.mu.Unlock()
		time.AfterFunc(d, func() {
			pp.mu.Lock()
			pp.thawed.Broadcast()
			pp.mu.Unlock()
		})
	}
	return len(p.pipes)
}

func (p *halfOpenProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.DialTimeout("tcp", p.target, time.Second)
		if err != nil {
			c.Close()
			continue
		}
		pp := &pipe{client: c, server: s}
		pp.thawed = sync.NewCond(&pp.mu)
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			c.Close()
			s.Close()
			return
		}
		p.pipes[pp] = true
		p.mu.Unlock()
		done := func() {
			c.Close()
			s.Close()
			p.mu.Lock()
			delete(p.pipes, pp)
			p.mu.Unlock()
		}
		var once sync.Once
		go func() { pp.forward(c, s); once.Do(done) }()
		go func() { pp.forward(s, c); once.Do(done) }()
	}
}

// forward copies src to dst, holding each chunk while the pipe is frozen.
func (pp *pipe) forward(src, dst net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			pp.mu.Lock()
			for time.Now().Before(pp.frozenUntil) {
				pp.thawed.Wait()
			}
			pp.mu.Unlock()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *halfOpenProxy) close() {
	p.mu.Lock()
	p.closed = true
	pipes := p.pipes
	p.pipes = map[*pipe]bool{}
	p.mu.Unlock()
	p.ln.Close()
	for pp := range pipes {
		pp.client.Close()
		pp.server.Close()
	}
}
