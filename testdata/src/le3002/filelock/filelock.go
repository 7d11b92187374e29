// Package filelock: locks kept as files in a directory that several
// instances share.
package filelock

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"time"
)

const staleAfter = time.Minute

// DirLocker takes over lock files it judges stale, and releases by removing
// the file, whoever wrote it.
type DirLocker struct{ dir string }

func (d *DirLocker) path(name string) string { return filepath.Join(d.dir, name+".lock") }

func create(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

func (d *DirLocker) Lock(name string) error {
	p := d.path(name)
	for {
		err := create(p)
		if err == nil || !errors.Is(err, os.ErrExist) {
			return err
		}
		if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > staleAfter {
			os.Remove(p) // stale: take it over
			continue
		}
		time.Sleep(time.Second)
	}
}

func (d *DirLocker) Unlock(name string) error {
	return os.Remove(d.path(name)) // want `os.Remove releases the lock file of \(DirLocker\).Unlock by removing it without reading it, so without checking that it is still this holder's: \(DirLocker\).Lock removes a lock file it judges stale`
}

// Negative: the lock is never taken over, so only its holder removes it
// (twin: DirLocker).
type PatientLocker struct{ dir string }

func (d *PatientLocker) Lock(name string) error {
	p := filepath.Join(d.dir, name+".lock")
	for {
		err := create(p)
		if err == nil || !errors.Is(err, os.ErrExist) {
			return err
		}
		time.Sleep(time.Second)
	}
}

func (d *PatientLocker) Unlock(name string) error {
	return os.Remove(filepath.Join(d.dir, name+".lock"))
}

// Negative: the release reads the owner token first (twin: DirLocker).
type TokenLocker struct {
	dir   string
	token []byte
}

func (d *TokenLocker) TryLock(name string) (bool, error) {
	p := filepath.Join(d.dir, name+".lock")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, os.ErrExist) {
		if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > staleAfter {
			os.Remove(p)
		}
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	_, err = f.Write(d.token)
	return err == nil, err
}

func (d *TokenLocker) Unlock(name string) error {
	p := filepath.Join(d.dir, name+".lock")
	b, err := os.ReadFile(p)
	if err != nil || !bytes.Equal(b, d.token) {
		return err
	}
	return os.Remove(p)
}

// Negative: a file opened without O_EXCL is not taken only if absent
// (twin: DirLocker).
type Scratch struct{ dir string }

func (s *Scratch) Lock(name string) error {
	p := filepath.Join(s.dir, name)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		os.Remove(p)
		return err
	}
	return f.Close()
}

func (s *Scratch) Unlock(name string) error { return os.Remove(filepath.Join(s.dir, name)) }

// A lock directory: os.Mkdir fails when it exists.
type DirLock struct{ path string }

// Positive: a stale directory is removed and the lock taken over; the
// release removes whatever directory is there.
func (d *DirLock) TryLock() error {
	if fi, err := os.Stat(d.path); err == nil && time.Since(fi.ModTime()) > staleAfter {
		os.RemoveAll(d.path)
	}
	return os.Mkdir(d.path, 0o700)
}

func (d *DirLock) Unlock() error {
	return os.RemoveAll(d.path) // want `os.RemoveAll releases the lock file of \(DirLock\).Unlock by removing it without reading it`
}

// Negative: os.MkdirAll succeeds when the directory exists, so it takes
// nothing (twin: DirLock).
type CacheDir struct{ path string }

func (c *CacheDir) TryLock() error {
	if fi, err := os.Stat(c.path); err == nil && time.Since(fi.ModTime()) > staleAfter {
		os.RemoveAll(c.path)
	}
	return os.MkdirAll(c.path, 0o700)
}

func (c *CacheDir) Unlock() error { return os.RemoveAll(c.path) }
