package le3002

import "fmt"

// Locker is a scheduler's pluggable lock, as in jasonlvhit/gocron: Unlock
// takes only the key.
type Locker interface {
	Lock(key string) (bool, error)
	Unlock(key string) error
}

var locker Locker

type job struct {
	name string
	fn   func() error
	lock bool
}

// run ignores whether Lock succeeded and always unlocks.
func (j *job) run() error {
	if j.lock {
		if locker == nil {
			return fmt.Errorf("trying to lock %s with nil locker", j.name)
		}
		key := "gocron:" + j.name
		locker.Lock(key)
		defer locker.Unlock(key) // want `locker\.Unlock\(key\) runs whether or not locker\.Lock\(key\) took the lock: its bool result is discarded`
	}
	return j.fn()
}

// --- negatives ---

// runChecked skips the work and the release when Lock fails.
func (j *job) runChecked() error {
	key := "gocron:" + j.name
	ok, err := locker.Lock(key)
	if err != nil || !ok {
		return err
	}
	defer locker.Unlock(key)
	return j.fn()
}

// ErrLocker's Lock returns only an error; nothing is discarded silently.
type ErrLocker interface {
	Lock(key string) error
	Unlock(key string) error
}

func runErrLocker(l ErrLocker, key string, fn func()) {
	l.Lock(key)
	defer l.Unlock(key)
	fn()
}

// keyedMutex is an in-process keyed mutex: not a distributed lock.
type keyedMutex struct {
	held map[string]bool
}

func (m *keyedMutex) Lock(key string) bool {
	if m.held[key] {
		return false
	}
	m.held[key] = true
	return true
}

func (m *keyedMutex) Unlock(key string) { delete(m.held, key) }

func runLocal(m *keyedMutex, key string, fn func()) {
	m.Lock(key)
	defer m.Unlock(key)
	fn()
}
