package le1001strict

import "github.com/hibiken/asynq"

// Task options handed in by the caller: whether they de-duplicate is
// unknown, silent by default (le1001/asynqreg, le1001/asynqmgr/opaque),
// shown here.
func registerCallerOptions(s *asynq.Scheduler, opts []asynq.Option) {
	s.Register("@hourly", asynq.NewTask("stats:roll", nil), opts...) // want `asynq.Scheduler.Register runs enqueue of the registered task on every replica`
}

type callerProvider struct{ configs []*asynq.PeriodicTaskConfig }

func (p *callerProvider) GetConfigs() ([]*asynq.PeriodicTaskConfig, error) { return p.configs, nil }

func (p *callerProvider) add(spec string, opts []asynq.Option) {
	p.configs = append(p.configs, &asynq.PeriodicTaskConfig{Cronspec: spec, Task: asynq.NewTask("sync", nil), Opts: opts})
}

func runCallerProvider(p *callerProvider) {
	mgr, _ := asynq.NewPeriodicTaskManager(asynq.PeriodicTaskManagerOpts{PeriodicTaskConfigProvider: p, RedisConnOpt: asynq.RedisClientOpt{}})
	mgr.Run() // want `asynq.PeriodicTaskManager.Run runs enqueue of its provider's periodic tasks on every replica`
}

// An ID computed by this process (it may differ on every replica): unknown,
// shown here; a constant ID is silent under every profile.
func registerComputedID(s *asynq.Scheduler, id string) {
	s.Register("@hourly", asynq.NewTask("stats:roll", nil), asynq.TaskID(id)) // want `asynq.Scheduler.Register runs enqueue of the registered task on every replica`
	s.Register("@hourly", asynq.NewTask("stats:roll", nil), asynq.TaskID("stats-roll"))
}
