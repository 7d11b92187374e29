// Package opaque: the configs' options come from the caller, so the
// analysis cannot tell whether they de-duplicate: an unknown effect,
// silent by default (le1001strict reports the same shape).
package opaque

import "github.com/hibiken/asynq"

type provider struct{ configs []*asynq.PeriodicTaskConfig }

func (p *provider) GetConfigs() ([]*asynq.PeriodicTaskConfig, error) { return p.configs, nil }

func (p *provider) Add(spec string, opts []asynq.Option) {
	p.configs = append(p.configs, &asynq.PeriodicTaskConfig{Cronspec: spec, Task: asynq.NewTask("sync", nil), Opts: opts})
}

// Negative (unknown): twin opaquetwin, the options built here.
func Run(p *provider) {
	mgr, _ := asynq.NewPeriodicTaskManager(asynq.PeriodicTaskManagerOpts{PeriodicTaskConfigProvider: p, RedisConnOpt: asynq.RedisClientOpt{}})
	mgr.Run()
}
