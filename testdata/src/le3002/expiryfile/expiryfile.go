// Package expiryfile: locks kept as files whose content is the time they
// expire, shared by several instances through one directory.
package expiryfile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

func expired(path string) (bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return false, err
	}
	return !time.Unix(0, n).After(time.Now()), nil
}

// Store hands out a release func that removes the file, whoever wrote it.
type Store struct{ dir string }

func (s *Store) Lock(name string, ttl time.Duration) (func() error, error) {
	path := filepath.Join(s.dir, name+".lock")
	free, err := expired(path)
	if err != nil || !free {
		return nil, errors.New("lock taken")
	}
	return write(path, ttl)
}

func write(path string, ttl time.Duration) (func() error, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.WriteString(strconv.FormatInt(time.Now().Add(ttl).UnixNano(), 10)); err != nil {
		return nil, err
	}
	return func() error {
		return os.Remove(path) // want `os.Remove releases the lock file of \(Store\).Lock \(the release func Lock returns\) by removing it without reading it back`
	}, nil
}

// Lease is released by a method of its type.
type Lease struct{ path string }

func (l *Lease) Acquire(ttl time.Duration) error {
	var exp int64
	if b, err := os.ReadFile(l.path); err == nil {
		exp, _ = strconv.ParseInt(string(b), 10, 64)
	}
	if exp > time.Now().UnixNano() {
		return errors.New("held")
	}
	return os.WriteFile(l.path, []byte(strconv.FormatInt(time.Now().Add(ttl).UnixNano(), 10)), 0o644)
}

func (l *Lease) Release() error {
	return os.RemoveAll(l.path) // want `os.RemoveAll releases the lock file of \(Lease\).Acquire \(\(Lease\).Release\)`
}

// Negative: the release reads the file back and removes it only while it
// holds this holder's expiry (twin: Lease).
type CheckedLease struct {
	path string
	mine []byte
}

func (l *CheckedLease) Acquire(ttl time.Duration) error {
	var exp int64
	if b, err := os.ReadFile(l.path); err == nil {
		exp, _ = strconv.ParseInt(string(b), 10, 64)
	}
	if exp > time.Now().UnixNano() {
		return errors.New("held")
	}
	l.mine = []byte(strconv.FormatInt(time.Now().Add(ttl).UnixNano(), 10))
	return os.WriteFile(l.path, l.mine, 0o644)
}

func (l *CheckedLease) Release() error {
	b, err := os.ReadFile(l.path)
	if err != nil || string(b) != string(l.mine) {
		return errors.New("lock lost")
	}
	return os.Remove(l.path)
}

// Negative: a cache file written with its expiry and removed by a cleanup
// func, but nothing compares the expiry with the clock: no lock (twin:
// Store, whose acquire treats an expired file as free).
func LockCache(dir string, ttl time.Duration) (func() error, error) {
	path := filepath.Join(dir, "cache.json")
	if err := os.WriteFile(path, []byte(time.Now().Add(ttl).Format(time.RFC3339)), 0o644); err != nil {
		return nil, err
	}
	return func() error { return os.Remove(path) }, nil
}

// Negative for the expiry class: an OS advisory lock; the kernel frees it
// when the process dies, and the file holds no expiry (twin: Store). Its
// removal of the locked path is the advisory-lock class's finding (a
// waiter on the old inode and a newcomer on a new file both hold it; see
// le3002/flockremove).
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
		return os.Remove(path) // want `os.Remove removes the path of a lock file locked with an advisory lock \(flock\(2\)`
	}, nil
}

// Negative: the acquire waits until a deadline for the file to go away,
// and writes its pid, not an expiry, so no holder's lock ever passes to
// another instance by the clock (twin: Store, which writes the expiry).
func LockPID(path string, wait time.Duration) (func() error, error) {
	deadline := time.Now().Add(wait)
	for {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			break
		}
		if time.Now().After(deadline) {
			return nil, errors.New("timed out")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, err
	}
	return func() error { return os.Remove(path) }, nil
}
