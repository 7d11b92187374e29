// Package unique: the configs' options come from a helper that appends
// asynq.Unique to a slice, kept in a struct-free memory provider.
package unique

import (
	"sync"
	"time"

	"github.com/hibiken/asynq"
)

type memoryProvider struct {
	mu      sync.Mutex
	configs []*asynq.PeriodicTaskConfig
}

func (m *memoryProvider) GetConfigs() ([]*asynq.PeriodicTaskConfig, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.configs, nil
}

func cronOptions(queue string) []asynq.Option {
	opts := []asynq.Option{asynq.Queue(queue)}
	opts = append(opts, asynq.Unique(time.Minute))
	return opts
}

func (m *memoryProvider) AddCron(spec, kind string) {
	c := &asynq.PeriodicTaskConfig{Cronspec: spec, Task: asynq.NewTask(kind, nil), Opts: cronOptions("cron")}
	m.mu.Lock()
	m.configs = append(m.configs, c)
	m.mu.Unlock()
}

// Negative: twin uniquetwin, the same helper without Unique.
func Run(m *memoryProvider) {
	mgr, _ := asynq.NewPeriodicTaskManager(asynq.PeriodicTaskManagerOpts{PeriodicTaskConfigProvider: m, RedisConnOpt: asynq.RedisClientOpt{}})
	go func() { _ = mgr.Run() }()
}
