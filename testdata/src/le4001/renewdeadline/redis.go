package renewdeadline

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisLock refreshes its key with PEXPIRE while the job runs on the
// lock's context.
type redisLock struct {
	rdb       *redis.Client
	key       string
	token     string
	ttl       time.Duration
	opTimeout time.Duration
	cancel    context.CancelFunc
}

func (l *redisLock) acquire(ctx context.Context) (context.Context, bool) {
	ok, err := l.rdb.SetNX(ctx, l.key, l.token, l.ttl).Result()
	if err != nil || !ok {
		return nil, false
	}
	ctx, l.cancel = context.WithCancel(ctx)
	return ctx, true
}

// refresh bounds each PEXPIRE by the TTL it asks for: a refresh that
// starts one tick after the last success may wait a tick past the expiry.
func (l *redisLock) refresh(ctx context.Context) {
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for range t.C {
		rctx, done := context.WithTimeout(ctx, l.ttl)
		ok, err := l.rdb.PExpire(rctx, l.key, l.ttl).Result() // want `this renewal is given a timeout equal to the TTL it asks for`
		done()
		if err != nil || !ok {
			l.cancel()
			return
		}
	}
}

// refreshShort bounds each PEXPIRE by an operation timeout that is not the
// TTL: not known to outlive the hold.
func (l *redisLock) refreshShort(ctx context.Context) {
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for range t.C {
		rctx, done := context.WithTimeout(ctx, l.opTimeout)
		ok, err := l.rdb.PExpire(rctx, l.key, l.ttl).Result()
		done()
		if err != nil || !ok {
			l.cancel()
			return
		}
	}
}

// refreshOwnCancel only releases the refresh's own context: nothing
// cancels the work when the loop is left (the failure is another check's).
func (l *redisLock) refreshOwnCancel(ctx context.Context) error {
	for {
		time.Sleep(l.ttl / 3)
		rctx, done := context.WithTimeout(ctx, l.ttl)
		ok, err := l.rdb.PExpire(rctx, l.key, l.ttl).Result()
		done()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
	}
}

// Constant timing: a 2 s timeout with a 30 s TTL renewed every 10 s
// ends 18 s before the key can expire.
func (l *redisLock) refreshConst(ctx context.Context) {
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for range t.C {
		rctx, done := context.WithTimeout(ctx, 2*time.Second)
		ok, err := l.rdb.PExpire(rctx, l.key, 30*time.Second).Result()
		done()
		if err != nil || !ok {
			l.cancel()
			return
		}
	}
}

// refreshConstLong is refreshConst's twin: a 20 s timeout reaches the
// expiry (30 s less the 10 s interval).
func (l *redisLock) refreshConstLong(ctx context.Context) {
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for range t.C {
		rctx, done := context.WithTimeout(ctx, 20*time.Second)
		ok, err := l.rdb.PExpire(rctx, l.key, 30*time.Second).Result() // want `this renewal is given a timeout of 20s, not below its TTL 30s less the renew interval 10s`
		done()
		if err != nil || !ok {
			l.cancel()
			return
		}
	}
}

// pexpireOnce renews once, bounded by the TTL it asks for; the loops that
// call it are judged.
func (l *redisLock) pexpireOnce(ctx context.Context) error {
	rctx, done := context.WithTimeout(ctx, l.ttl)
	defer done()
	ok, err := l.rdb.PExpire(rctx, l.key, l.ttl).Result()
	if err == nil && !ok {
		return context.Canceled
	}
	return err
}

// keepAlive renews through the helper on a ticker and cancels on failure.
func (l *redisLock) keepAlive(ctx context.Context) {
	t := time.NewTicker(l.ttl / 2)
	defer t.Stop()
	for range t.C {
		if err := l.pexpireOnce(ctx); err != nil { // want `this renewal is given a timeout equal to the TTL it asks for`
			l.cancel()
			return
		}
	}
}

// release renews once before deleting: not in a loop.
func (l *redisLock) release(ctx context.Context) {
	if err := l.pexpireOnce(ctx); err != nil {
		l.cancel()
	}
}
