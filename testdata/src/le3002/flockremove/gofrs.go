// Package flockremove: single-instance guards kept as advisory (flock)
// locks on a file in a shared data directory.
package flockremove

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
)

const pidLock = "/var/run/reindexer.lock"

func dataDir() string { return "/srv/reindex" }

// lockPath is where the instance lock lives.
func lockPath(name string) string { return filepath.Join(dataDir(), name) }

func work() error { return nil }

// Upgrade tries the lock to learn whether a daemon runs, and removes the
// lock file on both outcomes, including the one where the daemon holds it.
func Upgrade() error {
	lf := flock.New(lockPath("daemon.lock"))
	held, err := lf.TryLock() // the lock is on this open file
	if err != nil {
		return err
	}
	if held {
		err = work()
	} else {
		err = errors.New("daemon running")
	}
	_ = lf.Unlock()
	_ = os.Remove(lockPath("daemon.lock")) // want `os.Remove removes the path of a lock file locked with an advisory lock \(gofrs/flock, line 26\): the lock is held on the open file \(its inode\), not on the path`
	return err
}

// Serve holds the lock for the process's life and removes the file after
// unlocking on the way out.
func Serve() error {
	lf := flock.New(pidLock)
	if err := lf.Lock(); err != nil {
		return err
	}
	err := work()
	_ = lf.Unlock()
	_ = os.Remove(pidLock) // want `os.Remove removes the path of a lock file`
	return err
}

// ServeKeep releases the lock and leaves the file in place: the next
// instance opens and locks the same inode.
func ServeKeep() error {
	lf := flock.New(pidLock)
	if err := lf.Lock(); err != nil {
		return err
	}
	defer lf.Unlock()
	return work()
}

// Guard keeps its handle and path in fields; Close removes the file by
// the handle's path.
type Guard struct {
	fl   *flock.Flock
	path string
}

func OpenGuard(dir string) (*Guard, error) {
	p := filepath.Join(dir, "guard.lock")
	g := &Guard{fl: flock.New(p), path: p}
	if _, err := g.fl.TryLock(); err != nil {
		return nil, err
	}
	return g, nil
}

func (g *Guard) Close() error {
	err := g.fl.Unlock()
	_ = os.RemoveAll(g.fl.Path()) // want `os.RemoveAll removes the path of a lock file`
	return err
}

// CloseStatus removes a status file beside the lock, never the lock file.
func (g *Guard) CloseStatus() error {
	err := g.fl.Unlock()
	_ = os.Remove(g.path + ".status")
	return err
}

// CloseByField removes the lock file by the path field it was created from.
func (g *Guard) CloseByField() error {
	err := g.fl.Unlock()
	_ = os.Remove(g.path) // want `os.Remove removes the path of a lock file`
	return err
}

// Scratch removes a temporary file that no lock ever names.
func Scratch(dir string) error {
	tmp := filepath.Join(dir, "scratch.tmp")
	if err := os.WriteFile(tmp, nil, 0o644); err != nil {
		return err
	}
	return os.Remove(tmp)
}

// ScratchLocked is Scratch whose file is also taken as a lock.
func ScratchLocked(dir string) error {
	tmp := filepath.Join(dir, "scratch.tmp")
	lf := flock.New(tmp)
	if err := lf.Lock(); err != nil {
		return err
	}
	_ = lf.Unlock()
	return os.Remove(tmp) // want `os.Remove removes the path of a lock file`
}

// OtherDir: the same text, filepath.Join(dir, "scratch.tmp"), over another
// function's dir is another path.
func OtherDir(dir string) error {
	return os.Remove(filepath.Join(dir, "scratch.tmp"))
}

// SameJoin removes the lock file by rebuilding its path from the same
// variable.
func SameJoin(dir string) error {
	lf := flock.New(filepath.Join(dir, "x.lock"))
	if err := lf.Lock(); err != nil {
		return err
	}
	_ = lf.Unlock()
	return os.Remove(filepath.Join(dir, "x.lock")) // want `os.Remove removes the path of a lock file`
}

// Daemon locks the same path as Upgrade for its whole run; the report
// names this function's own acquire.
func Daemon() error {
	lf := flock.New(lockPath("daemon.lock"))
	if err := lf.Lock(); err != nil {
		return err
	}
	defer os.Remove(lockPath("daemon.lock")) // want `\(gofrs/flock, line 141\)`
	defer lf.Unlock()
	return work()
}
