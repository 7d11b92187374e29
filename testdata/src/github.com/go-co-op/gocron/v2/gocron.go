// Package gocron is a stub of github.com/go-co-op/gocron/v2 for analysistest.
package gocron

import "time"

type Job interface{ ID() string }

type JobDefinition interface{}

type Task func() (any, []any)

type JobOption func() error

type SchedulerOption func() error

type Elector interface{}

type Locker interface{}

type Scheduler interface {
	NewJob(JobDefinition, Task, ...JobOption) (Job, error)
	Start()
	Shutdown() error
}

func NewScheduler(options ...SchedulerOption) (Scheduler, error) { return nil, nil }
func DurationJob(d time.Duration) JobDefinition                  { return nil }
func CronJob(crontab string, withSeconds bool) JobDefinition     { return nil }
func NewTask(function any, parameters ...any) Task               { return nil }
func WithDistributedElector(elector Elector) SchedulerOption     { return nil }
func WithDistributedLocker(locker Locker) SchedulerOption        { return nil }
