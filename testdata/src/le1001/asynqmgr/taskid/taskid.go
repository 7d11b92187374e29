// Package taskid: every config carries a constant task ID, so Redis
// refuses the copies the other replicas enqueue on the same tick.
package taskid

import "github.com/hibiken/asynq"

type staticProvider struct{}

func (staticProvider) GetConfigs() ([]*asynq.PeriodicTaskConfig, error) {
	return []*asynq.PeriodicTaskConfig{
		{Cronspec: "0 3 * * *", Task: asynq.NewTask("ledger:close", nil), Opts: []asynq.Option{asynq.Queue("ledger"), asynq.TaskID("ledger-close")}},
		{Cronspec: "*/5 * * * *", Task: asynq.NewTask("ledger:sweep", nil, asynq.TaskID("ledger-sweep"))},
	}, nil
}

// Negative: twin taskidtwin, the same configs without the ID.
func Start() error {
	mgr, err := asynq.NewPeriodicTaskManager(asynq.PeriodicTaskManagerOpts{
		PeriodicTaskConfigProvider: staticProvider{},
		RedisConnOpt:               asynq.RedisClientOpt{Addr: "redis:6379"},
	})
	if err != nil {
		return err
	}
	return mgr.Start()
}
