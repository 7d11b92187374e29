// Package expiryrefresh: a lock file whose expiry is rewritten while held.
package expiryrefresh

import (
	"errors"
	"os"
	"strconv"
	"time"
)

// Negative: the holder rewrites the expiry while the lock is held, so it
// does not pass under a live holder (twin: le3004/expiryfile Store).
type Lease struct {
	path string
	stop chan struct{}
}

func (l *Lease) Acquire(ttl time.Duration) error {
	if b, err := os.ReadFile(l.path); err == nil {
		if n, _ := strconv.ParseInt(string(b), 10, 64); time.Unix(0, n).After(time.Now()) {
			return errors.New("held")
		}
	}
	if err := os.WriteFile(l.path, []byte(strconv.FormatInt(time.Now().Add(ttl).UnixNano(), 10)), 0o644); err != nil {
		return err
	}
	l.stop = make(chan struct{})
	go l.keep(ttl)
	return nil
}

func (l *Lease) keep(ttl time.Duration) {
	t := time.NewTicker(ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			_ = os.WriteFile(l.path, []byte(strconv.FormatInt(time.Now().Add(ttl).UnixNano(), 10)), 0o644)
		}
	}
}

func (l *Lease) Release() error {
	close(l.stop)
	return os.Remove(l.path)
}
