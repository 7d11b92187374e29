// Package expiryfile: a lock kept as a file whose content is the time it
// expires, written once when the lock is taken.
package expiryfile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

type Store struct{ dir string }

func (s *Store) Lock(name string, ttl time.Duration) (func() error, error) {
	path := filepath.Join(s.dir, name+".lock")
	if b, err := os.ReadFile(path); err == nil {
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return nil, err
		}
		if time.Now().Before(time.Unix(0, n)) {
			return nil, errors.New("lock taken")
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.WriteString(strconv.FormatInt(time.Now().Add(ttl).UnixNano(), 10)); err != nil { // want `\(Store\).Lock takes a lock by writing a lock file that holds this expiry, fixed once when the lock is taken, and nothing rewrites the file while the lock is held`
		return nil, err
	}
	return func() error { return os.Remove(path) }, nil
}

// Migrate holds the lock around work of any length.
func Migrate(s *Store, steps []func() error) error {
	unlock, err := s.Lock("migrate", time.Minute)
	if err != nil {
		return err
	}
	defer unlock()
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// Negative: a cache file stamped with its expiry, never compared with the
// clock: no lock (twin: Store).
func LockCache(dir string, ttl time.Duration) (func() error, error) {
	path := filepath.Join(dir, "cache.json")
	if err := os.WriteFile(path, []byte(time.Now().Add(ttl).Format(time.RFC3339)), 0o644); err != nil {
		return nil, err
	}
	return func() error { return os.Remove(path) }, nil
}

// Negative: an OS advisory lock, held until released or the process dies;
// the file holds no expiry (twin: Store).
func LockExclusive(path string, wait time.Duration) (func() error, error) {
	if fi, err := os.Stat(path); err == nil && time.Since(fi.ModTime()) > wait {
		return nil, errors.New("old lock file")
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		defer f.Close()
		return os.Remove(path)
	}, nil
}
