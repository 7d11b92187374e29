package le4001

import (
	"context"
	"log"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	"github.com/hashicorp/consul/api"
	"github.com/jasonlvhit/gocron"

	"le4001/leasekeeper"
)

var locker gocron.Locker

func runJob(key string, job func()) {
	// the boolean is discarded: every replica runs the job (jasonlvhit/gocron#160)
	locker.Lock(key) // want `the result of \(gocron.Locker\).Lock is discarded and the work runs anyway`
	defer locker.Unlock(key)
	job()
}

func runJobChecked(key string, job func()) {
	ok, err := locker.Lock(key)
	if err != nil || !ok {
		return
	}
	defer locker.Unlock(key)
	job()
}

func runJobIgnored(key string, job func()) {
	_, _ = locker.Lock(key) // want `the result of \(gocron.Locker\).Lock is discarded`
	job()
}

func billing(rs *redsync.Redsync, charge func()) {
	m := rs.NewMutex("billing")
	m.Lock() // want `the result of \(redsync.Mutex\).Lock is discarded`
	defer m.Unlock()
	charge()
}

func billingChecked(rs *redsync.Redsync, charge func()) error {
	m := rs.NewMutex("billing")
	if err := m.Lock(); err != nil {
		return err
	}
	defer m.Unlock()
	charge()
	return nil
}

// Consul: the lost-leadership channel is thrown away.
func consulLeader(client *api.Client, work func()) error {
	lock, err := client.LockKey("service/reports/leader")
	if err != nil {
		return err
	}
	_, err = lock.Lock(nil) // want `the lost-leadership channel returned by \(api.Lock\).Lock is discarded`
	if err != nil {
		return err
	}
	defer lock.Unlock()
	for {
		work()
		time.Sleep(time.Minute)
	}
}

// Consul, correct: the work stops when the channel closes.
func consulLeaderGood(client *api.Client, work func()) error {
	lock, err := client.LockKey("service/reports/leader")
	if err != nil {
		return err
	}
	lost, err := lock.Lock(nil)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-lost:
			return nil
		case <-t.C:
			work()
		}
	}
}

// Renewal whose failure is only logged.
func extendLoop(ctx context.Context, m *redsync.Mutex, work func(context.Context)) {
	go func() {
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		for range t.C {
			if ok, err := m.Extend(); !ok || err != nil { // want `the failure of \(redsync.Mutex\).Extend is only logged while the work continues`
				log.Printf("extend %s: %v", m.Name(), err)
			}
		}
	}()
	work(ctx)
}

func refreshLoop(ctx context.Context, l *redislock.Lock, work func(context.Context)) {
	go func() {
		for range time.Tick(5 * time.Second) {
			l.Refresh(ctx, 10*time.Second, nil) // want `the result of \(redislock.Lock\).Refresh is discarded`
		}
	}()
	work(ctx)
}

// Correct renewal: a failure cancels the work.
func refreshGood(ctx context.Context, l *redislock.Lock, work func(context.Context)) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for range time.Tick(5 * time.Second) {
			if err := l.Refresh(ctx, 10*time.Second, nil); err != nil {
				log.Printf("refresh: %v", err)
				cancel()
				return
			}
		}
	}()
	work(ctx)
}

// A project's own lock type: the renewal is recognised because the type
// also has Lock and Unlock.
type DirLock interface {
	Lock(ctx context.Context) error
	Unlock() error
	Heartbeat(ctx context.Context) error
}

type scheduler struct {
	dirLock DirLock
	quit    chan struct{}
}

func (s *scheduler) startHeartbeat(ctx context.Context) {
	ticker := time.NewTicker(7 * time.Second)
	defer ticker.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-ctx.Done():
			return
		case <-ticker.C:
			if err := s.dirLock.Heartbeat(ctx); err != nil { // want `the failure of \(le4001.DirLock\).Heartbeat is only logged while the work continues`
				log.Printf("failed to send heartbeat for scheduler lock: %v", err)
			}
		}
	}
}

// Not a lock: a cache refresh whose failure is only logged is fine.
type cache struct{}

func (c *cache) Refresh(ctx context.Context) error { return nil }

func refreshCache(ctx context.Context, c *cache) {
	for range time.Tick(time.Minute) {
		if err := c.Refresh(ctx); err != nil {
			log.Printf("refresh cache: %v", err)
		}
	}
}

// A project's Locker with a bool result, like gocron's.
type Locker interface {
	Lock(key string) (bool, error)
	Unlock(key string) error
}

func runLocked(l Locker, key string, job func()) {
	l.Lock(key) // want `the result of \(le4001.Locker\).Lock is discarded and the work runs anyway`
	defer l.Unlock(key)
	go job()
}

// The acquire failure is only logged, and the job runs anyway.
func nightly(rs *redsync.Redsync, job func()) {
	m := rs.NewMutex("nightly")
	if err := m.Lock(); err != nil { // want `the failure of \(redsync.Mutex\).Lock is only logged and the work runs anyway`
		log.Printf("could not lock nightly: %v", err)
	}
	defer m.Unlock()
	job()
}

// The error of Obtain is discarded: on failure the lock is nil and the
// report runs anyway.
func dailyReport(ctx context.Context, locker *redislock.Client, report func(context.Context)) {
	lock, _ := locker.Obtain(ctx, "report:daily", time.Minute, nil) // want `the result of \(redislock.Client\).Obtain is discarded and the work runs anyway`
	defer lock.Release(ctx)
	report(ctx)
}

func dailyReportChecked(ctx context.Context, locker *redislock.Client, report func(context.Context)) {
	lock, err := locker.Obtain(ctx, "report:daily", time.Minute, nil)
	if err != nil {
		return
	}
	defer lock.Release(ctx)
	report(ctx)
}

// The bool says whether the lock was taken; ignoring the error is fine.
func runJobOK(key string, job func()) {
	ok, _ := locker.Lock(key)
	if !ok {
		return
	}
	job()
}

func dailyReportNilCheck(ctx context.Context, locker *redislock.Client, report func(context.Context)) {
	lock, _ := locker.Obtain(ctx, "report:daily", time.Minute, nil)
	if lock == nil {
		return
	}
	defer lock.Release(ctx)
	report(ctx)
}

// A renewal through a helper of another package, only logged.
func keepAlive(k *leasekeeper.Keeper) {
	for range time.Tick(2 * time.Second) {
		if err := k.Renew(); err != nil { // want `the failure of \(leasekeeper.Keeper\).Renew is only logged while the work continues`
			log.Printf("renew: %v", err)
		}
	}
}
