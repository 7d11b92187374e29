// Package asynqreg: Scheduler.Register with the task options that make
// Redis refuse the other replicas' copies, each beside a twin without them.
package asynqreg

import (
	"time"

	"github.com/hibiken/asynq"
)

// Negative: a constant task ID on the registration.
func RegisterWithID(s *asynq.Scheduler) {
	s.Register("@daily", asynq.NewTask("digest:send", nil), asynq.TaskID("digest-daily"))
}

// Positive twin: another option in its place.
func RegisterWithQueue(s *asynq.Scheduler) {
	s.Register("@daily", asynq.NewTask("digest:send", nil), asynq.Queue("mail")) // want `asynq.Scheduler.Register runs enqueue of the registered task on every replica`
}

// Negative: uniqueness among the task's own default options, reached
// through a local variable.
func RegisterUniqueTask(s *asynq.Scheduler) {
	t := asynq.NewTask("cleanup:uploads", nil, asynq.Unique(30*time.Minute))
	s.Register("*/30 * * * *", t)
}

// Positive twin: the task's options do not de-duplicate.
func RegisterRetriedTask(s *asynq.Scheduler) {
	t := asynq.NewTask("cleanup:uploads", nil, asynq.MaxRetry(5))
	s.Register("*/30 * * * *", t) // want `asynq.Scheduler.Register runs enqueue of the registered task on every replica`
}

func digestOptions() []asynq.Option {
	return []asynq.Option{asynq.Queue("mail"), asynq.TaskID("digest-weekly")}
}

func retryOptions() []asynq.Option {
	return []asynq.Option{asynq.Queue("mail"), asynq.MaxRetry(2)}
}

// Negative: the ID comes from a helper's slice.
func RegisterHelperOptions(s *asynq.Scheduler) {
	s.Register("@weekly", asynq.NewTask("digest:weekly", nil), digestOptions()...)
}

// Positive twin: the helper's slice has no ID.
func RegisterHelperRetry(s *asynq.Scheduler) {
	s.Register("@weekly", asynq.NewTask("digest:weekly", nil), retryOptions()...) // want `asynq.Scheduler.Register runs enqueue of the registered task on every replica`
}

// Negative (unknown): the caller's options cannot be read; silent by
// default, reported under the strict profile (le1001strict).
func RegisterCallerOptions(s *asynq.Scheduler, opts []asynq.Option) {
	s.Register("@hourly", asynq.NewTask("stats:roll", nil), opts...)
}

// Negative (unknown): an ID computed by this process may differ on every
// replica, so it proves nothing either way.
func RegisterComputedID(s *asynq.Scheduler, id string) {
	s.Register("@hourly", asynq.NewTask("stats:roll", nil), asynq.TaskID(id))
}

// Positive twin of both: the options built here, none de-duplicating.
func RegisterLocalOptions(s *asynq.Scheduler) {
	opts := []asynq.Option{asynq.Timeout(time.Minute)}
	s.Register("@hourly", asynq.NewTask("stats:roll", nil), opts...) // want `asynq.Scheduler.Register runs enqueue of the registered task on every replica`
}
