// Package opaquetwin: the opaque provider with its options built in the
// function from library options, none of which de-duplicates.
package opaquetwin

import "github.com/hibiken/asynq"

type provider struct{ configs []*asynq.PeriodicTaskConfig }

func (p *provider) GetConfigs() ([]*asynq.PeriodicTaskConfig, error) { return p.configs, nil }

func (p *provider) Add(spec string) {
	var opts []asynq.Option
	opts = append(opts, asynq.Queue("sync"))
	p.configs = append(p.configs, &asynq.PeriodicTaskConfig{Cronspec: spec, Task: asynq.NewTask("sync", nil), Opts: opts})
}

// Positive.
func Run(p *provider) {
	mgr, _ := asynq.NewPeriodicTaskManager(asynq.PeriodicTaskManagerOpts{PeriodicTaskConfigProvider: p, RedisConnOpt: asynq.RedisClientOpt{}})
	mgr.Run() // want `asynq.PeriodicTaskManager.Run runs enqueue of its provider's periodic tasks on every replica: it sends task queue \(Redis\), config opaquetwin.go:14 without TaskID or Unique; guarded by nothing`
}
