package redisstore

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bsm/redislock"

	"github.com/gatesift/gatesift-vet/internal/electorbench"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// The Peer benchmarks measure the leader loop users commonly write with
// bsm/redislock, on the same Redis server and in the same run as the
// Elector benchmarks, through the same measurement code
// (electorbench.MeasureHandover and MeasureFailover), so the figures compare.
//
// The loop is matched to electorbench.Timing: the lock's TTL is the lease
// duration (2 s), the holder refreshes every renew interval (500 ms), and a
// candidate that did not obtain the lock tries again after the retry
// interval (200 ms; the elector waits 200 ms plus up to 20% jitter, so on
// average this loop polls about 10% more often). redislock has no wakeups:
// a standby learns of a release only by its next Obtain.

// peerKey is the lock key of lease name, under this benchmark's prefix.
func peerKey(name string) string { return "bench:peer:" + name }

// lockLoop is one candidate process running the redislock leader loop:
//
//	for {
//		lock, err := locker.Obtain(ctx, key, ttl, nil)
//		if err != nil { sleep(retry); continue } // held, or a Redis error
//		work until Refresh fails or we stop; Release
//	}
type lockLoop struct {
	locker  *redislock.Client
	key     string
	started chan time.Time
	resign  chan chan bool // Resign asks the leading loop; it answers whether it led
	crashed atomic.Bool
	lastAck atomic.Int64 // unix ns of the last successful Obtain or Refresh
	stop    context.CancelFunc
	done    chan struct{}
}

func startLockLoop(b *testing.B, addr, name string) *lockLoop {
	b.Helper()
	l := &lockLoop{
		locker:  redislock.New(benchClient(b, addr)),
		key:     peerKey(name),
		started: make(chan time.Time, 16),
		resign:  make(chan chan bool),
		done:    make(chan struct{}),
	}
	ctx, cancel := context.WithCancel(context.Background())
	l.stop = cancel
	go func() {
		defer close(l.done)
		l.run(ctx)
	}()
	b.Cleanup(l.Stop)
	return l
}

func (l *lockLoop) run(ctx context.Context) {
	retry := electorbench.Timing().RetryInterval
	for ctx.Err() == nil {
		lock, err := l.locker.Obtain(ctx, l.key, electorbench.Timing().LeaseDuration, nil)
		if err != nil {
			// ErrNotObtained (someone else holds it) or a Redis error:
			// either way, try again after the retry interval.
			l.sleep(ctx, retry)
			continue
		}
		l.lastAck.Store(time.Now().UnixNano())
		if l.lead(ctx, lock) {
			// Resigned: stay out for two retry intervals, as the elector's
			// Resign does, so the standby takes over.
			l.sleep(ctx, 2*retry)
		}
	}
}

// lead runs the work while refreshing the lock; it reports whether it ended
// by resigning.
func (l *lockLoop) lead(ctx context.Context, lock *redislock.Lock) bool {
	l.started <- time.Now()
	t := electorbench.Timing()
	tick := time.NewTicker(t.RenewInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			if !l.crashed.Load() { // a clean shutdown releases; a crash cannot
				rctx, cancel := context.WithTimeout(context.Background(), t.RetryInterval)
				_ = lock.Release(rctx)
				cancel()
			}
			return false
		case answer := <-l.resign:
			_ = lock.Release(ctx)
			answer <- true
			return true
		case <-tick.C:
			rctx, cancel := context.WithTimeout(ctx, t.RetryInterval)
			err := lock.Refresh(rctx, t.LeaseDuration, nil)
			cancel()
			if err != nil {
				return false // lost (or Redis unreachable): stop the work, compete again
			}
			l.lastAck.Store(time.Now().UnixNano())
		}
	}
}

func (l *lockLoop) sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// Stop ends the loop (releasing the lock unless it crashed) and waits.
func (l *lockLoop) Stop() { l.stop(); <-l.done }

func (l *lockLoop) WaitLead(b *testing.B) time.Time {
	b.Helper()
	select {
	case at := <-l.started:
		return at
	case <-time.After(30 * time.Second):
		b.Fatal("redislock loop did not lead within 30 s")
		return time.Time{}
	}
}

// Resign releases the lock if this loop holds it.
func (l *lockLoop) Resign() bool {
	answer := make(chan bool, 1)
	select {
	case l.resign <- answer:
		return <-answer
	case <-time.After(time.Second): // not leading: nobody receives
		return false
	}
}

// Crash stops the loop without a release: the lock stays until its TTL
// runs out, as after kill -9 of the holder.
func (l *lockLoop) Crash() {
	l.crashed.Store(true)
	l.Stop()
}

func (l *lockLoop) LastAck() time.Time { return time.Unix(0, l.lastAck.Load()) }

// lockLoops starts redislock loops on the shared Redis server.
func lockLoops(b *testing.B) electorbench.Start {
	addr := testserver.Redis(b).Addr()
	return func(b *testing.B, name, _ string) electorbench.Contender {
		return startLockLoop(b, addr, name)
	}
}

// BenchmarkPeerRedislockHandover: the holder Releases, the standby obtains
// at its next attempt. It also reports the elector's figures from
// BenchmarkElectorHandover in the same run divided by these
// (p50-elector-handover-over-peer, p99-...).
func BenchmarkPeerRedislockHandover(b *testing.B) {
	electorbench.ReportRatio(b, "elector-handover", electorbench.MeasureHandover(b, lockLoops(b)))
}

// BenchmarkPeerRedislockFailover: the holder stops refreshing, the standby
// obtains once the key has expired; with the ratios to
// BenchmarkElectorFailover.
func BenchmarkPeerRedislockFailover(b *testing.B) {
	electorbench.ReportRatio(b, "elector-failover", electorbench.MeasureFailover(b, lockLoops(b)))
}
