// Fixture for the first-contact discovery: lock and election sites. Written
// for this repository.
package worker

import (
	"context"
	"database/sql"
	"log"

	"github.com/go-redsync/redsync/v4"
	"github.com/redis/go-redis/v9"
	"go.etcd.io/etcd/client/v3/concurrency"
	"k8s.io/client-go/tools/leaderelection"
	ctrl "sigs.k8s.io/controller-runtime"
)

type Locker interface {
	Lock(ctx context.Context, name string) error
	Unlock(ctx context.Context, name string) error
}

func locks(ctx context.Context, rdb *redis.Client, conn interface {
	Do(string, ...any) (any, error)
}, db *sql.DB, l Locker, rs *redsync.Redsync, sess *concurrency.Session) {
	rdb.SetNX(ctx, "lock:x", 1, 0)                                             // site: lock redis SetNX
	conn.Do("SET", "lock:y", "me", "NX", "PX", 30000)                          // site: lock redis SET ... NX
	conn.Do("SET", "counter", 1)                                               // a plain SET: not a site
	l.Lock(ctx, "maintenance")                                                 // site: lock .Lock(...)
	m := rs.NewMutex("job")                                                    // site: lock .NewMutex
	m.Lock()                                                                   // site: lock .Lock(...)
	db.ExecContext(ctx, "SELECT pg_try_advisory_lock($1)", 42)                 // site: lock SQL advisory lock
	db.QueryContext(ctx, "SELECT id FROM jobs FOR UPDATE SKIP LOCKED LIMIT 1") // site: lock SQL SKIP LOCKED claim
	db.ExecContext(ctx, "INSERT INTO app_locks (name) VALUES ($1)", "gc")      // site: lock SQL lock/lease table
	db.ExecContext(ctx, "INSERT INTO state_block (id) VALUES ($1)", 1)         // "block" is not a lock table: not a site
	db.ExecContext(ctx, "UPDATE public.leases SET holder = $1", "me")          // site: lock SQL lock/lease table
	db.ExecContext(ctx, "DELETE FROM sessions WHERE expires < now()")          // not a lock table: not a site
	log.Print("failed to update lease using latest lease")                     // prose, not SQL: not a site
	e := concurrency.NewElection(sess, "/leader")                              // site: election concurrency.NewElection
	e.Campaign(ctx, "me")                                                      // site: election .Campaign
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{})        // site: election leaderelection.RunOrDie
	_ = ctrl.Options{LeaderElection: true}                                     // site: election LeaderElection option
}

type runnable struct{}

func (runnable) NeedLeaderElection() bool { return true } // site: election NeedLeaderElection method (controller-runtime runnable)
