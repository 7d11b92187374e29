// Package uniquetwin: the unique package whose helper appends a timeout,
// not asynq.Unique.
package uniquetwin

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
	opts = append(opts, asynq.Timeout(time.Minute))
	return opts
}

func (m *memoryProvider) AddCron(spec, kind string) {
	c := &asynq.PeriodicTaskConfig{Cronspec: spec, Task: asynq.NewTask(kind, nil), Opts: cronOptions("cron")}
	m.mu.Lock()
	m.configs = append(m.configs, c)
	m.mu.Unlock()
}

// Positive: no config is unique.
func Run(m *memoryProvider) {
	mgr, _ := asynq.NewPeriodicTaskManager(asynq.PeriodicTaskManagerOpts{PeriodicTaskConfigProvider: m, RedisConnOpt: asynq.RedisClientOpt{}})
	go func() { _ = mgr.Run() }() // want `asynq.PeriodicTaskManager.Run runs enqueue of its provider.s periodic tasks on every replica`
}
