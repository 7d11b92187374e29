package renewdeadline

import (
	"context"
	"database/sql"
	"time"

	"github.com/redis/go-redis/v9"

	"example.com/scriptkv"
)

// leaseClock keeps how long this holder may work, as a local time.
type leaseClock struct {
	rdb        *redis.Client
	db         *sql.DB
	key        string
	token      string
	ttl        time.Duration
	validUntil time.Time
	startedOK  time.Time
	rowUntil   time.Time
	note       time.Time
	kv         *scriptkv.Client
	putUntil   time.Time
	backoff    time.Duration
	retryAt    time.Time
}

// acquireLate reads the clock after SET NX answered: the validity ends
// later than the key by the reply's way back.
func (l *leaseClock) acquireLate(ctx context.Context) bool {
	ok, err := l.rdb.SetNX(ctx, l.key, l.token, l.ttl).Result()
	if err != nil || !ok {
		return false
	}
	l.validUntil = time.Now().Add(l.ttl)
	return true
}

// valid is the work's check of the late validity.
func (l *leaseClock) valid() bool {
	return time.Now().Before(l.validUntil) // want `this check reads a validity computed as time.Now\(\).Add\(ttl\) after the reply of the call that asked the store for ttl`
}

// acquireEarly reads the clock before sending SET NX: the validity ends
// no later than the key.
func (l *leaseClock) acquireEarly(ctx context.Context) bool {
	start := time.Now()
	ok, err := l.rdb.SetNX(ctx, l.key, l.token, l.ttl).Result()
	if err != nil || !ok {
		return false
	}
	l.startedOK = start.Add(l.ttl)
	return true
}

func (l *leaseClock) validEarly() bool {
	return time.Now().Before(l.startedOK)
}

// renewRow moves the row's expiry and then derives the work's deadline
// from a clock read after the reply.
func (l *leaseClock) renewRow(ctx context.Context, name, holder string) error {
	res, err := l.db.ExecContext(ctx, `UPDATE leases SET expires_at = now() + $1 * interval '1 millisecond' WHERE name = $2 AND holder = $3`, l.ttl.Milliseconds(), name, holder)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return sql.ErrNoRows
	}
	l.rowUntil = time.Now().Add(l.ttl)
	return nil
}

func (l *leaseClock) workContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithDeadline(ctx, l.rowUntil) // want `this check reads a validity computed as time.Now\(\).Add\(ttl\) after the reply`
}

// touch records a time after a read that asks the store for no expiry:
// not a validity.
func (l *leaseClock) touch(ctx context.Context) {
	if err := l.rdb.Get(ctx, l.key).Err(); err == nil {
		l.note = time.Now().Add(l.ttl)
	}
}

func (l *leaseClock) noted() bool {
	return time.Now().Before(l.note)
}

// putAndNote passes the TTL to a call no knowledge or text says moves an
// expiry: unknown, silent.
func (l *leaseClock) putAndNote(ctx context.Context) {
	if err := l.kv.Put(ctx, l.key, l.token, l.ttl.Milliseconds()); err == nil {
		l.putUntil = time.Now().Add(l.ttl)
	}
}

func (l *leaseClock) putValid() bool {
	return time.Now().Before(l.putUntil)
}

// acquireCooldown records when to try again after an acquire, a time that
// is not the TTL asked for.
func (l *leaseClock) acquireCooldown(ctx context.Context) bool {
	ok, err := l.rdb.SetNX(ctx, l.key, l.token, l.ttl).Result()
	l.retryAt = time.Now().Add(l.backoff)
	return err == nil && ok
}

func (l *leaseClock) mayRetry() bool {
	return time.Now().After(l.retryAt)
}
