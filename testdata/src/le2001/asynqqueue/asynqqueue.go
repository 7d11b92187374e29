// Package asynqqueue: two PeriodicTaskManagers enqueue the same configs.
// The task queue is not a resource two schedulers compete for (LE1001
// reports each manager; the tasks' handlers are where the shared writes
// are), so LE2001 stays silent. Twin: le2001.go's two loops writing one
// table.
package asynqqueue

import "github.com/hibiken/asynq"

type provider struct{}

func (provider) GetConfigs() ([]*asynq.PeriodicTaskConfig, error) {
	return []*asynq.PeriodicTaskConfig{{Cronspec: "@hourly", Task: asynq.NewTask("rollup", nil)}}, nil
}

func manager() *asynq.PeriodicTaskManager {
	mgr, _ := asynq.NewPeriodicTaskManager(asynq.PeriodicTaskManagerOpts{PeriodicTaskConfigProvider: provider{}, RedisConnOpt: asynq.RedisClientOpt{}})
	return mgr
}

func Main() {
	go manager().Run()
	go manager().Run()
}
