package elector

import "context"

// termEnd is closed when a term is over: its work returned (or was given
// up on at shutdown) and its release was tried. err says how it ended.
type termEnd struct {
	done chan struct{}
	err  error // nil: released; else why not, or why it ended otherwise
}

// Resign gives up the current term gracefully: the work's context is
// cancelled with cause ErrResigned, the term is released after the work
// returns, and Run waits two retry intervals before competing again so a
// standby can take over. It waits until the term is over or ctx ends, and
// returns nil once the term was released; ErrNotLeading if there was no
// term to resign; an error saying why otherwise: the release failed (the
// lease expires in the store), the term had been lost already (ErrLost,
// ErrDeadlinePassed), or Run gave up on the work at shutdown
// (ErrWorkRunning). If ctx ends first it returns ctx.Err(), and the
// resignation goes on.
func (c *Candidate) Resign(ctx context.Context) error {
	c.mu.Lock()
	if c.resign == nil {
		c.mu.Unlock()
		return ErrNotLeading
	}
	select {
	case <-c.resign:
	default:
		close(c.resign)
	}
	end := c.ending
	c.mu.Unlock()
	select {
	case <-end.done:
		return end.err
	case <-ctx.Done():
		return ctx.Err()
	}
}
