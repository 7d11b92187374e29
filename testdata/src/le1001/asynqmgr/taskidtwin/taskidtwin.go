// Package taskidtwin: the taskid configs with the ID option replaced by
// other options of the library; the second config keeps its ID.
package taskidtwin

import "github.com/hibiken/asynq"

type staticProvider struct{}

func (staticProvider) GetConfigs() ([]*asynq.PeriodicTaskConfig, error) {
	return []*asynq.PeriodicTaskConfig{
		{Cronspec: "0 3 * * *", Task: asynq.NewTask("ledger:close", nil), Opts: []asynq.Option{asynq.Queue("ledger"), asynq.MaxRetry(3)}},
		{Cronspec: "*/5 * * * *", Task: asynq.NewTask("ledger:sweep", nil, asynq.TaskID("ledger-sweep"))},
	}, nil
}

// Positive: one config has no ID, and each replica enqueues it.
func Start() error {
	mgr, err := asynq.NewPeriodicTaskManager(asynq.PeriodicTaskManagerOpts{
		PeriodicTaskConfigProvider: staticProvider{},
		RedisConnOpt:               asynq.RedisClientOpt{Addr: "redis:6379"},
	})
	if err != nil {
		return err
	}
	return mgr.Start() // want `asynq.PeriodicTaskManager.Start runs enqueue of its provider's periodic tasks on every replica`
}
