// Package redigopool: background work through a redigo connection pool, in
// a re-armed timer loop that every worker starts.
package redigopool

import (
	"time"

	"github.com/gomodule/redigo/redis"
)

type reaper struct {
	pool *redis.Pool
	stop chan struct{}
}

// Start runs on every worker, so on every replica.
func (r *reaper) Start() { go r.loop() }

func (r *reaper) loop() {
	timer := time.NewTimer(time.Minute) // want `time.NewTimer runs loop body on every replica every 1m0s: it sends redis key jobs:queue \(via redigopool.\(\*reaper\).enqueueReport\)`
	defer timer.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-timer.C:
			timer.Reset(time.Minute)
			r.enqueueReport()
		}
	}
}

// enqueue pushes a report job: run on every replica, each run pushes one
// more.
var enqueue = redis.NewScript(1, `
redis.call('rpush', KEYS[1], ARGV[1])
return redis.call('llen', KEYS[1])`)

func (r *reaper) enqueueReport() error {
	conn := r.pool.Get()
	defer conn.Close()
	_, err := enqueue.Do(conn, "jobs:queue", "report")
	return err
}

// Negative: the script moves a dead job back to the queue only when its
// LPOP took one, so each job moves once however many replicas run it (a
// claim; twin: enqueue, which pushes unconditionally).
var requeue = redis.NewScript(2, `
local job = redis.call('lpop', KEYS[1])
if job then redis.call('rpush', KEYS[2], job) end
return job`)

func (r *reaper) requeueLoop() {
	t := time.NewTimer(time.Minute)
	for range t.C {
		conn := r.pool.Get()
		requeue.Do(conn, "jobs:dead", "jobs:queue")
		conn.Close()
		t.Reset(time.Minute)
	}
}

// Negative: a push gated on ZREM's answer (twin: enqueue).
var promote = redis.NewScript(2, `
for _, id in ipairs(redis.call('zrangebyscore', KEYS[1], '-inf', ARGV[1])) do
  if redis.call('zrem', KEYS[1], id) == 1 then redis.call('lpush', KEYS[2], id) end
end`)

func (r *reaper) promoteLoop() {
	t := time.NewTimer(time.Minute)
	for range t.C {
		conn := r.pool.Get()
		promote.Do(conn, "jobs:scheduled", "jobs:queue", time.Now().Unix())
		conn.Close()
		t.Reset(time.Minute)
	}
}

// Positive: a script built in place, pipelined commands.
func (r *reaper) sweep() {
	t := time.NewTimer(time.Second) // want `time.NewTimer runs loop body on every replica every 1s: it increments redis key stats:sweeps`
	for range t.C {
		conn := r.pool.Get()
		redis.NewScript(1, `return redis.call('incr', KEYS[1])`).Do(conn, "stats:sweeps")
		conn.Send("RPUSH", "jobs:queue", "sweep")
		conn.Close()
		t.Reset(time.Second)
	}
}

// Negative: a script that only reads is no effect (its twin, requeue, writes).
var peek = redis.NewScript(1, `return redis.call('lrange', KEYS[1], 0, 10)`)

func (r *reaper) watch() {
	t := time.NewTimer(time.Second)
	for range t.C {
		conn := r.pool.Get()
		peek.Do(conn, "jobs:dead")
		conn.Close()
		t.Reset(time.Second)
	}
}

// Negative: the script claims a key with SET NX before it pushes: a claim,
// coordination the lock rules judge.
var claimPush = redis.NewScript(2, `
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', 30000) then
  redis.call('rpush', KEYS[2], ARGV[2])
end`)

func (r *reaper) claimed() {
	t := time.NewTimer(time.Second)
	for range t.C {
		conn := r.pool.Get()
		claimPush.Do(conn, "jobs:claim", "jobs:queue", "me", "job")
		conn.Close()
		t.Reset(time.Second)
	}
}

// Positive twin of claimed: the same script without NX claims nothing.
var plainPush = redis.NewScript(2, `
if redis.call('set', KEYS[1], ARGV[1], 'PX', 30000) then
  redis.call('rpush', KEYS[2], ARGV[2])
end`)

func (r *reaper) unclaimed() {
	t := time.NewTimer(time.Second) // want `time.NewTimer runs loop body on every replica every 1s: it sends redis key jobs:claim`
	for range t.C {
		conn := r.pool.Get()
		plainPush.Do(conn, "jobs:claim", "jobs:queue", "me", "job")
		conn.Close()
		t.Reset(time.Second)
	}
}

// A script handle kept in a struct field, set where the struct is built.
type reporter struct {
	pool   *redis.Pool
	script *redis.Script
}

func newReporter(pool *redis.Pool) *reporter {
	return &reporter{pool: pool, script: redis.NewScript(1, `return redis.call('rpush', KEYS[1], ARGV[1])`)}
}

// Positive: the field's only value pushes unconditionally.
func (r *reporter) run() {
	t := time.NewTimer(time.Minute) // want `time.NewTimer runs loop body on every replica every 1m0s: it sends redis key jobs:reports`
	for range t.C {
		conn := r.pool.Get()
		r.script.Do(conn, "jobs:reports", "daily")
		conn.Close()
		t.Reset(time.Minute)
	}
}

// Negative: the field's only value only reads (twin: reporter).
type watcher struct {
	pool   *redis.Pool
	script *redis.Script
}

func newWatcher(pool *redis.Pool) *watcher {
	return &watcher{pool: pool, script: redis.NewScript(1, `return redis.call('llen', KEYS[1])`)}
}

func (w *watcher) run() {
	t := time.NewTimer(time.Minute)
	for range t.C {
		conn := w.pool.Get()
		w.script.Do(conn, "jobs:reports")
		conn.Close()
		t.Reset(time.Minute)
	}
}

// Negative: the answer of RPOPLPUSH kept in a variable declared earlier
// gates the rest: each job moves once (twin: enqueue).
var move = redis.NewScript(3, `
local res
res = redis.call('rpoplpush', KEYS[1], KEYS[2])
if res then redis.call('incr', KEYS[3]) end
return res`)

func (r *reaper) moveLoop() {
	t := time.NewTimer(time.Minute)
	for range t.C {
		conn := r.pool.Get()
		move.Do(conn, "jobs:inprogress", "jobs:queue", "stats:moved")
		conn.Close()
		t.Reset(time.Minute)
	}
}
