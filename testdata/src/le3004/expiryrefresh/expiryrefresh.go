// Package expiryrefresh: a lock file whose expiry is rewritten while held,
// next to one whose expiry is not.
package expiryrefresh

import (
	"errors"
	"os"
	"path/filepath"
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

// Positive: a second lock file of the same package that nothing rewrites.
// Lease's refresh rewrites Lease's file, not this one: its path is a field
// of another type, though it is spelled l.path too (twin: Lease).
type Slot struct{ path string }

func (l *Slot) Acquire(ttl time.Duration) error {
	if b, err := os.ReadFile(l.path); err == nil {
		if n, _ := strconv.ParseInt(string(b), 10, 64); time.Unix(0, n).After(time.Now()) {
			return errors.New("held")
		}
	}
	return os.WriteFile(l.path, []byte(strconv.FormatInt(time.Now().Add(ttl).UnixNano(), 10)), 0o644) // want `\(Slot\).Acquire takes a lock by writing a lock file that holds this expiry, fixed once when the lock is taken, and nothing rewrites the file while the lock is held: the work between \(Slot\).Acquire and \(Slot\).Release runs`
}

func (l *Slot) Release() error {
	return os.Remove(l.path)
}

// Negative: the refresher names the same file by its own variable, holding
// the same join of the same directory and name (twin: Slot).
func LockDir(dir string, ttl time.Duration) (func() error, error) {
	path := filepath.Join(dir, "jobs.lock")
	if b, err := os.ReadFile(path); err == nil {
		if n, _ := strconv.ParseInt(string(b), 10, 64); time.Unix(0, n).After(time.Now()) {
			return nil, errors.New("held")
		}
	}
	if err := os.WriteFile(path, []byte(strconv.FormatInt(time.Now().Add(ttl).UnixNano(), 10)), 0o644); err != nil {
		return nil, err
	}
	stop := make(chan struct{})
	go keepDir(dir, ttl, stop)
	return func() error {
		close(stop)
		return os.Remove(path)
	}, nil
}

func keepDir(dir string, ttl time.Duration, stop chan struct{}) {
	path := filepath.Join(dir, "jobs.lock")
	t := time.NewTicker(ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			_ = os.WriteFile(path, []byte(strconv.FormatInt(time.Now().Add(ttl).UnixNano(), 10)), 0o644)
		}
	}
}
