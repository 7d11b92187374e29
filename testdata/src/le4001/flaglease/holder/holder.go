// Package holder takes the leases of lockclient and works under them.
package holder

import (
	"context"
	"os"

	"le4001/flaglease/lockclient"
)

// put writes one record to the shared file.
func put(path string, rec []byte) error { return os.WriteFile(path, rec, 0o644) }

// fileHandle keeps a write lease while it is open and never asks Held:
// its writes go on after the lease is lost.
type fileHandle struct {
	path  string
	lease *lockclient.Lease
}

func openHandle(path string) *fileHandle {
	h := &fileHandle{path: path}
	h.lease = lockclient.Acquire(path) // want `the lease taken here is renewed in the background, and a failed renewal only clears held \(lockclient.go:\d+\), read by Held; no code of this package reads Held on the lock it keeps in lease`
	return h
}

func (h *fileHandle) write(rec []byte) error { return put(h.path, rec) }

func (h *fileHandle) close() { h.lease.Release() }

// checkedHandle asks Held before every write (the guard whose removal is
// fileHandle).
type checkedHandle struct {
	path  string
	lease *lockclient.Lease
}

func openChecked(path string) *checkedHandle {
	h := &checkedHandle{path: path}
	h.lease = lockclient.Acquire(path)
	return h
}

func (h *checkedHandle) write(rec []byte) error {
	if !h.lease.Held() {
		return os.ErrPermission
	}
	return put(h.path, rec)
}

// copyChecked asks Held on every round of its loop.
func copyChecked(path string, recs [][]byte) {
	l := lockclient.Acquire(path)
	defer l.Release()
	for _, r := range recs {
		if !l.Held() {
			return
		}
		_ = put(path, r)
	}
}

// copyCheckedOnce asks Held once, before the loop starts (the twin of
// copyChecked).
func copyCheckedOnce(path string, recs [][]byte) {
	l := lockclient.Acquire(path) // want `the loop that follows works without reading Held`
	defer l.Release()
	if !l.Held() {
		return
	}
	for _, r := range recs {
		_ = put(path, r)
	}
}

// putOnce does one write under the lease: a short section, no report.
func putOnce(path string, rec []byte) {
	l := lockclient.Acquire(path)
	_ = put(path, rec)
	l.Release()
}

// locker is the part of lockclient.Locker a manager uses.
type locker interface {
	Lock(owner string)
	Unlock()
}

// manager takes the locker through an interface field it only ever fills
// with a *lockclient.Locker, and never asks Locked.
type manager struct {
	locker locker
}

func newManager() *manager { return &manager{locker: lockclient.NewLocker("jobs")} }

func (m *manager) acquire() func() {
	m.locker.Lock("admin") // want `a failed renewal only clears locked \(lockclient.go:\d+\), read by Locked; no code of this package reads Locked on the lock it keeps in locker`
	return m.locker.Unlock
}

// checkingManager keeps the concrete locker and asks Locked before each
// job (the guard whose removal is manager).
type checkingManager struct {
	lk *lockclient.Locker
}

func (m *checkingManager) run(jobs []string) {
	m.lk.Lock("admin")
	defer m.lk.Unlock()
	for _, j := range jobs {
		if !m.lk.Locked() {
			return
		}
		_ = put(j, nil)
	}
}

// cancelled works on the context a failed renewal cancels: the lock has
// no fact, nothing to report.
func cancelled(ctx context.Context, path string, recs chan []byte) {
	l := lockclient.AcquireCancel(path)
	work := l.Context()
	for {
		select {
		case <-work.Done():
			return
		case r := <-recs:
			_ = put(path, r)
		}
	}
}

// lateCancelled is cancelled's code on a lease whose failure does not
// cancel the context (the twin of cancelled).
func lateCancelled(ctx context.Context, path string, recs chan []byte) {
	l := lockclient.AcquireLate(path) // want `the loop that follows works without reading Held`
	defer l.Release()
	work := l.Context()
	for {
		select {
		case <-work.Done():
			return
		case r := <-recs:
			_ = put(path, r)
		}
	}
}

// watching selects on Lost in its loop.
func watching(path string, recs chan []byte) {
	l := lockclient.AcquireLost(path)
	for {
		select {
		case <-l.Lost():
			return
		case r := <-recs:
			_ = put(path, r)
		}
	}
}

// ignoring has the lost channel and never selects on it (the twin of
// watching).
func ignoring(path string, recs chan []byte) {
	l := lockclient.AcquireLost(path) // want `the loop that follows works without reading Lost`
	_ = l
	for r := range recs {
		_ = put(path, r)
	}
}

// calledBack is told of the loss by a callback: no fact, no report.
func calledBack(path string, recs chan []byte) {
	stop := make(chan struct{})
	lockclient.AcquireCallback(path, func() { close(stop) })
	for {
		select {
		case <-stop:
			return
		case r := <-recs:
			_ = put(path, r)
		}
	}
}

// supervise may watch the lease: what it does is not followed.
func supervise(l *lockclient.Lease) { go func() { _ = l.Held() }() }

// handedOn gives the lock to code this does not follow: no report (the
// twin is copyCheckedOnce).
func handedOn(path string, recs [][]byte) {
	l := lockclient.Acquire(path)
	supervise(l)
	for _, r := range recs {
		_ = put(path, r)
	}
}

// localLocker is a second kind of locker a mixedManager may hold.
type localLocker struct{}

func (localLocker) Lock(string) {}
func (localLocker) Unlock()     {}

// mixedManager's field holds either locker: which Lock runs is not known,
// no report (the twin is manager).
type mixedManager struct {
	locker locker
}

func newMixed(remote bool) *mixedManager {
	if remote {
		return &mixedManager{locker: lockclient.NewLocker("jobs")}
	}
	return &mixedManager{locker: localLocker{}}
}

func (m *mixedManager) acquire() func() {
	m.locker.Lock("admin")
	return m.locker.Unlock
}

// blind works under a lease whose flag no method reads: the lock has no
// fact (the twin is copyCheckedOnce).
func blind(path string, recs [][]byte) {
	l := lockclient.AcquireBlind(path)
	defer l.Release()
	for _, r := range recs {
		_ = put(path, r)
	}
}

// merge folds one record into the batch.
func merge(batch, rec []byte) []byte { return append(batch, rec...) }

// checkedAfterLoop prepares its batch in a loop and asks Held just before
// the one write (the twin is copyCheckedOnce, which asks before the loop).
func checkedAfterLoop(path string, recs [][]byte) error {
	l := lockclient.Acquire(path)
	defer l.Release()
	var batch []byte
	for _, r := range recs {
		batch = merge(batch, r)
	}
	if !l.Held() {
		return os.ErrPermission
	}
	return put(path, batch)
}

// checkedAfterBranches takes the lease only for appends, in a branch of a
// branch, and asks Held after the loop: the lock reaches the check
// through two phis (the twin is copyCheckedOnce).
func checkedAfterBranches(path string, appendMode, shared bool, recs [][]byte) error {
	var l *lockclient.Lease
	if appendMode {
		if shared {
			l = lockclient.Acquire(path)
			defer l.Release()
		}
		_ = put(path+".log", nil)
	}
	var batch []byte
	for _, r := range recs {
		batch = merge(batch, r)
	}
	if l != nil && !l.Held() {
		return os.ErrPermission
	}
	return put(path, batch)
}
