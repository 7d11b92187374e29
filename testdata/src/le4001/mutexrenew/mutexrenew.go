// Package mutexrenew pairs renewals that are no lock's with the ones that
// are: a type whose Lock and Unlock come from an embedded process-local
// mutex is no distributed lock, and a renewal helper that cancels the work
// itself when the renewal fails leaves its caller nothing to stop.
package mutexrenew

import (
	"context"
	"log"
	"sync"
	"time"
)

type store interface {
	Put(ctx context.Context, key string, ttl time.Duration) error
	Delete(ctx context.Context, key string) error
}

// progressReporter's Lock and Unlock are sync.Mutex's: they guard its
// fields, and its Heartbeat reports progress, not a hold.
type progressReporter struct {
	sync.Mutex
	s       store
	pending int
}

func (p *progressReporter) Heartbeat(ctx context.Context) error {
	p.Lock()
	defer p.Unlock()
	p.pending = 0
	return p.s.Put(ctx, "progress", time.Minute)
}

func flushProgress(ctx context.Context, p *progressReporter) {
	_ = p.Heartbeat(ctx)
	p.pending++
}

// guardedCounts embeds a sync.RWMutex; statusPinger embeds it in turn, so
// its Lock and Unlock are still the RWMutex's.
type guardedCounts struct {
	sync.RWMutex
	sent int
}

type statusPinger struct {
	guardedCounts
	s store
}

func (p *statusPinger) Refresh(ctx context.Context) error {
	p.Lock()
	p.sent++
	p.Unlock()
	return p.s.Put(ctx, "status", time.Minute)
}

func pingStatus(ctx context.Context, p *statusPinger) {
	p.Refresh(ctx)
	p.sent++
}

// storeLock's own Lock and Unlock write the store: a lock the replicas
// share, whose Heartbeat keeps the hold.
type storeLock struct {
	s   store
	key string
}

func (l *storeLock) Lock(ctx context.Context) error   { return l.s.Put(ctx, l.key, time.Minute) }
func (l *storeLock) Unlock(ctx context.Context) error { return l.s.Delete(ctx, l.key) }
func (l *storeLock) Heartbeat(ctx context.Context) error {
	return l.s.Put(ctx, l.key, time.Minute)
}

func work() {}

func keepLogged(ctx context.Context, l *storeLock) {
	for {
		if err := l.Heartbeat(ctx); err != nil { // want `the failure of \(mutexrenew.storeLock\).Heartbeat is only logged while the work continues`
			log.Printf("heartbeat: %v", err)
		}
		work()
	}
}

func keepDiscarded(ctx context.Context, l *storeLock) {
	l.Heartbeat(ctx) // want `the result of \(mutexrenew.storeLock\).Heartbeat is discarded`
	work()
}

// watchedLock is a store lock whose Heartbeat cancels the work when the
// hold cannot be kept.
type watchedLock struct {
	storeLock
	cancel context.CancelFunc
}

func (l *watchedLock) Heartbeat(ctx context.Context) error {
	if err := l.s.Put(ctx, l.key, time.Minute); err != nil {
		l.cancel()
		return err
	}
	return nil
}

func keepWatched(ctx context.Context, l *watchedLock) {
	_ = l.Heartbeat(ctx)
	work()
}

// job renews its lock through helpers.
type job struct {
	lock   *storeLock
	cancel context.CancelFunc
	onLost func(error)
	lost   chan struct{}
}

// renewOrCancel cancels the job's context when the renewal fails.
func (j *job) renewOrCancel(ctx context.Context) error {
	if err := j.lock.Heartbeat(ctx); err != nil {
		j.cancel()
		return err
	}
	return nil
}

// renewAndSettle leaves the stopping to settle, a helper of its own that
// calls the job's loss handler.
func (j *job) renewAndSettle(ctx context.Context) error {
	err := j.lock.Heartbeat(ctx)
	j.settle(err)
	return err
}

func (j *job) settle(err error) {
	if err != nil {
		j.onLost(err)
	}
}

// renewOrClose closes the channel the work watches.
func (j *job) renewOrClose(ctx context.Context) error {
	err := j.lock.Heartbeat(ctx)
	if err != nil {
		close(j.lost)
	}
	return err
}

// renewBounded only returns the error: the cancel it defers ends its own
// timeout context, not the work.
func (j *job) renewBounded(ctx context.Context) error { // want renewBounded:"renews via \\(mutexrenew.storeLock\\).Heartbeat"
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return j.lock.Heartbeat(ctx)
}

// renewRetried hands the renewal to a retry helper, whose call of its
// operation cancels nothing.
func (j *job) renewRetried(ctx context.Context) error { // want renewRetried:"renews via \\(mutexrenew.storeLock\\).Heartbeat"
	return retry(3, func() error { return j.lock.Heartbeat(ctx) })
}

func retry(n int, op func() error) error {
	var err error
	for i := 0; i < n; i++ {
		if err = op(); err == nil {
			return nil
		}
	}
	return err
}

func (j *job) tick(ctx context.Context) {
	_ = j.renewOrCancel(ctx)
	_ = j.renewAndSettle(ctx)
	_ = j.renewOrClose(ctx)
	_ = j.renewBounded(ctx) // want `the result of \(mutexrenew.job\).renewBounded is discarded`
	_ = j.renewRetried(ctx) // want `the result of \(mutexrenew.job\).renewRetried is discarded`
	work()
}
