// Package invlocks holds the locks and leader elections of the inventory
// test. Each marked line is a site: "inventory: KIND VERDICT [RULES]".
package invlocks

import (
	"context"
	"database/sql"
	"time"

	"github.com/bsm/redislock"
	"github.com/gatesift/gatesift-vet/elector"
	"github.com/redis/go-redis/v9"
	"go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"k8s.io/client-go/tools/leaderelection"
)

// noExpiry takes a lock that never expires and frees it by name.
func noExpiry(ctx context.Context, rdb *redis.Client) {
	ok, err := rdb.SetNX(ctx, "lock:nightly", "me", 0).Result() // inventory: lock finding LE3001 LE3002
	if err != nil || !ok {
		return
	}
	rdb.Del(ctx, "lock:nightly")
}

// withTTL takes a lock with a TTL and releases it with a compare-and-delete
// script: nothing to report.
func withTTL(ctx context.Context, rdb *redis.Client) {
	lockOK, err := rdb.SetNX(ctx, "lock:hourly", "me", 30*time.Second).Result() // inventory: lock coordinated
	if err != nil || !lockOK {
		return
	}
	rdb.Eval(ctx, `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end`, []string{"lock:hourly"}, "me")
}

// obtain holds a fixed-TTL lock around an endless loop without refreshing it.
func obtain(ctx context.Context, locker *redislock.Client, jobs <-chan func()) {
	lock, err := locker.Obtain(ctx, "lock:worker", 10*time.Second, nil) // inventory: lock finding LE3004
	if err != nil {
		return
	}
	defer lock.Release(ctx)
	for job := range jobs {
		job()
	}
}

// elect runs an elector candidate with its own timing.
func elect(ctx context.Context, store elector.Store, work elector.Work) error {
	c, err := elector.New(store, "reports", elector.WithTiming(elector.Timing{
		LeaseDuration: 20 * time.Second,
		RenewInterval: 5 * time.Second,
		RetryInterval: 2 * time.Second,
	}))
	if err != nil {
		return err
	}
	return c.Run(ctx, work) // inventory: election coordinated
}

// badTiming renews after the lease has expired: client-go rejects it.
func badTiming(ctx context.Context, run func(context.Context)) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{ // inventory: election finding LE4002
		LeaseDuration: 10 * time.Second,
		RenewDeadline: 15 * time.Second,
		RetryPeriod:   2 * time.Second,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: run,
			OnStoppedLeading: func() { panic("lost the lease") },
		},
	})
}

// campaign elects through etcd with a 10 s session.
func campaign(ctx context.Context, cli *clientv3.Client, work func(context.Context)) error {
	sess, err := concurrency.NewSession(cli, concurrency.WithTTL(10))
	if err != nil {
		return err
	}
	defer sess.Close()
	e := concurrency.NewElection(sess, "/leader/compactor")
	if err := e.Campaign(ctx, "me"); err != nil { // inventory: election coordinated
		return err
	}
	work(sess.Ctx())
	return nil
}

// rowLocker is a lock the package builds from a row of a configured table:
// LE3001 reports it at the insert and LE3002 at the delete by key alone (the
// two rules read one computation of the project's locks); the inventory's
// site is the insert, and it names both.
type rowLocker struct {
	db    *sql.DB
	table string
}

func (l *rowLocker) Lock(ctx context.Context, id int64) error {
	query := "SELECT 1"
	query = "INSERT INTO " + l.table + " (lock_id) VALUES ($1)"
	_, err := l.db.ExecContext(ctx, query, id) // inventory: lock finding LE3001 LE3002
	return err
}

func (l *rowLocker) Unlock(ctx context.Context, id int64) error {
	_, err := l.db.ExecContext(ctx, "DELETE FROM "+l.table+" WHERE lock_id = $1", id)
	return err
}
