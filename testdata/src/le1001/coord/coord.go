// Package coord: schedulers of every kind, coordinated and not.
package coord

import (
	"context"
	"database/sql"
	"time"

	"github.com/go-co-op/gocron/v2"
	"github.com/hibiken/asynq"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/leaderelection"
)

// Positive: gocron v2 without a distributed elector.
func GocronJobs(db *sql.DB) {
	s, _ := gocron.NewScheduler()
	s.NewJob(gocron.DurationJob(time.Hour), gocron.NewTask(func() { // want `gocron.Scheduler.NewJob runs func literal on every replica: it inserts into table payouts`
		db.Exec(`INSERT INTO payouts (merchant_id) SELECT id FROM merchants WHERE payable`)
	}))
}

// Positive: the asynq Scheduler enqueues on every replica that runs one.
func Periodic(s *asynq.Scheduler) {
	s.Register("@every 1h", asynq.NewTask("report:send", nil)) // want `asynq.Scheduler.Register runs enqueue of the registered task on every replica`
}

// Positive: wait.UntilWithContext.
func Reconciler(ctx context.Context, db *sql.DB) {
	wait.UntilWithContext(ctx, func(ctx context.Context) { // want `wait.UntilWithContext runs func literal on every replica every 30s`
		db.ExecContext(ctx, `UPDATE nodes_desired SET applied = true WHERE applied = false`)
	}, 30*time.Second)
}

// Negative: the same work started from a client-go leader callback, two
// calls down.
func RunWithElection(ctx context.Context, db *sql.DB, lec leaderelection.LeaderElectionConfig) {
	lec.Callbacks = leaderelection.LeaderCallbacks{
		OnStartedLeading: func(ctx context.Context) { startAll(ctx, db) },
		OnStoppedLeading: func() {},
	}
	leaderelection.RunOrDie(ctx, lec)
}

func startAll(ctx context.Context, db *sql.DB) { go billingLoop(ctx, db) }

func billingLoop(ctx context.Context, db *sql.DB) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			db.ExecContext(ctx, `INSERT INTO charges (account_id) SELECT id FROM accounts WHERE due`)
		}
	}
}

// Negative: IsLeader checked inside the loop, before the effect.
func Checked(ctx context.Context, le *leaderelection.LeaderElector, db *sql.DB) {
	for range time.Tick(time.Minute) {
		if !le.IsLeader() {
			continue
		}
		db.ExecContext(ctx, `INSERT INTO reminders (user_id) SELECT id FROM users WHERE remind`)
	}
}

// Negative: gocron v2 with a distributed elector.
func Distributed(db *sql.DB, e gocron.Elector) {
	s, _ := gocron.NewScheduler(gocron.WithDistributedElector(e))
	s.NewJob(gocron.DurationJob(time.Hour), gocron.NewTask(func() {
		db.Exec(`INSERT INTO payouts (merchant_id) SELECT id FROM merchants WHERE payable`)
	}))
}
