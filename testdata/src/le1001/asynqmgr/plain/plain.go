// Package plain: a PeriodicTaskManager whose provider returns configs with
// no task ID or uniqueness option, started on every replica; and the same
// manager started only under a leader election callback.
package plain

import (
	"context"
	"time"

	"github.com/hibiken/asynq"
	"k8s.io/client-go/tools/leaderelection"
)

type reportProvider struct{ tenants []string }

func (p *reportProvider) GetConfigs() ([]*asynq.PeriodicTaskConfig, error) {
	var out []*asynq.PeriodicTaskConfig
	for _, t := range p.tenants {
		out = append(out, &asynq.PeriodicTaskConfig{
			Cronspec: "@hourly",
			Task:     asynq.NewTask("invoice:"+t, nil),
		})
	}
	return out, nil
}

func newManager(p *reportProvider) *asynq.PeriodicTaskManager {
	mgr, _ := asynq.NewPeriodicTaskManager(asynq.PeriodicTaskManagerOpts{
		PeriodicTaskConfigProvider: p,
		RedisConnOpt:               asynq.RedisClientOpt{Addr: "redis:6379"},
		SyncInterval:               time.Minute,
	})
	return mgr
}

// Positive: every replica runs the manager.
func RunEverywhere(p *reportProvider) {
	mgr := newManager(p)
	go mgr.Run() // want `asynq.PeriodicTaskManager.Run runs enqueue of its provider's periodic tasks on every replica: it sends task queue \(Redis\), config plain.go:19 without TaskID or Unique; guarded by nothing`
}

// Negative: the manager starts only when this replica is elected (twin:
// RunEverywhere, the same manager outside the callback).
func RunElected(ctx context.Context, p *reportProvider, lec leaderelection.LeaderElectionConfig) {
	mgr := newManager(p)
	lec.Callbacks = leaderelection.LeaderCallbacks{
		OnStartedLeading: func(ctx context.Context) { mgr.Start() },
		OnStoppedLeading: func() { mgr.Shutdown() },
	}
	leaderelection.RunOrDie(ctx, lec)
}
