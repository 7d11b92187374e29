// Package expiryrefresh: a lock file touched while held, next to one that
// is not.
package expiryrefresh

import (
	"errors"
	"os"
	"strconv"
	"time"
)

// Negative: a ticker touches the file while the lock is held. The tool
// takes a touch as a refresh (it does not follow whether the expiry is read
// from the content or the mtime) and stays silent (twin:
// le3002/expiryfile Lease).
type Lease struct {
	path string
	stop chan struct{}
}

func stamp(ttl time.Duration) []byte {
	return []byte(strconv.FormatInt(time.Now().Add(ttl).UnixNano(), 10))
}

func (l *Lease) Acquire(ttl time.Duration) error {
	var exp int64
	if b, err := os.ReadFile(l.path); err == nil {
		exp, _ = strconv.ParseInt(string(b), 10, 64)
	}
	if exp > time.Now().UnixNano() {
		return errors.New("held")
	}
	if err := os.WriteFile(l.path, stamp(ttl), 0o644); err != nil {
		return err
	}
	l.stop = make(chan struct{})
	go func() {
		t := time.NewTicker(ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-l.stop:
				return
			case now := <-t.C:
				_ = os.Chtimes(l.path, now, now)
			}
		}
	}()
	return nil
}

func (l *Lease) Release() error {
	close(l.stop)
	return os.Remove(l.path)
}

// Positive: a second lock file of the same package that nothing touches.
// Lease's ticker touches Lease's file, not this one: its path is a field of
// another type, though it is spelled l.path too (twin: Lease).
type Slot struct{ path string }

func (l *Slot) Acquire(ttl time.Duration) error {
	var exp int64
	if b, err := os.ReadFile(l.path); err == nil {
		exp, _ = strconv.ParseInt(string(b), 10, 64)
	}
	if exp > time.Now().UnixNano() {
		return errors.New("held")
	}
	return os.WriteFile(l.path, stamp(ttl), 0o644)
}

func (l *Slot) Release() error {
	return os.Remove(l.path) // want `os.Remove releases the lock file of \(Slot\).Acquire \(\(Slot\).Release\) by removing it without reading it back`
}
