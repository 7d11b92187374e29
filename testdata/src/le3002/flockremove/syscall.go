package flockremove

import (
	"errors"
	"os"
	"syscall"
)

var errMoved = errors.New("lock file replaced while waiting")

// lockInode opens path and locks it, then checks that the file it locked
// is still the one at path: a releaser that removed the path while holding
// the lock leaves the waiter an orphaned inode, which it gives up on.
func lockInode(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	onDisk, err := os.Stat(path)
	if err != nil {
		f.Close()
		return nil, err
	}
	mine, err := f.Stat()
	if err != nil || !os.SameFile(onDisk, mine) {
		f.Close()
		return nil, errMoved
	}
	return f, nil
}

const spoolLock = "/var/spool/mailer/lock"

// RunChecked removes the lock file while it still holds the lock, and the
// acquirer re-checks the inode: a waiter that gets the old inode sees it is
// no longer at the path.
func RunChecked() error {
	f, err := lockInode(spoolLock)
	if err != nil {
		return err
	}
	err = work()
	_ = os.Remove(spoolLock)
	_ = f.Close()
	return err
}

// RunCheckedLate has the re-checking acquirer, but removes the file after
// closing it: the waiter locks the old inode and finds it still at the path
// just before the removal, and a newcomer locks a new file.
func RunCheckedLate() error {
	f, err := lockInode(spoolLock)
	if err != nil {
		return err
	}
	err = work()
	_ = f.Close()
	_ = os.Remove(spoolLock) // want `os.Remove removes the path of a lock file locked with an advisory lock \(flock\(2\), line 19\)`
	return err
}

const queueLock = "/var/spool/queue/lock"

// lockPlain locks without re-checking the inode.
func lockPlain(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// RunPlain removes before unlocking as RunChecked does, but its acquirer
// does not re-check: a waiter locks the removed inode and runs beside a
// newcomer.
func RunPlain() error {
	f, err := lockPlain(queueLock)
	if err != nil {
		return err
	}
	err = work()
	_ = os.Remove(queueLock) // want `os.Remove removes the path of a lock file`
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return err
}

// RunCheckedDeferred defers the close before the removal: defers run last
// in, first out, so the file is removed while still locked.
func RunCheckedDeferred() error {
	f, err := lockInode(spoolLock)
	if err != nil {
		return err
	}
	defer f.Close()
	defer os.Remove(spoolLock)
	return work()
}

// RunCheckedDeferredLate defers the removal first: it runs after the close.
func RunCheckedDeferredLate() error {
	f, err := lockInode(spoolLock)
	if err != nil {
		return err
	}
	defer os.Remove(spoolLock) // want `os.Remove removes the path of a lock file`
	defer f.Close()
	return work()
}

const sweepPath = "/var/spool/sweeper/state"

// Sweep only ever unlocks its file (LOCK_UN is no acquire), so nothing
// here says the file is locked at all.
func Sweep() error {
	f, err := os.Open(sweepPath)
	if err != nil {
		return err
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	_ = f.Close()
	return os.Remove(sweepPath)
}

const sweepLocked = "/var/spool/sweeper/lock"

// SweepLocked takes the lock, shared, before the same unlock and removal.
func SweepLocked() error {
	f, err := os.Open(sweepLocked)
	if err != nil {
		return err
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	_ = f.Close()
	return os.Remove(sweepLocked) // want `os.Remove removes the path of a lock file`
}
