// Package gocron is a stub of github.com/jasonlvhit/gocron (v0.0.1) for
// analyzer tests: real names and signatures, trivial bodies.
package gocron

// Locker provides a method to lock jobs from running at the same time on
// multiple instances of gocron.
type Locker interface {
	Lock(key string) (bool, error)
	Unlock(key string) error
}

// SetLocker sets a locker implementation.
func SetLocker(l Locker) {}

// Job struct keeping information about job.
type Job struct{}

// Do specifies the jobFunc that should be called every time the job runs.
func (j *Job) Do(jobFun interface{}, params ...interface{}) error { return nil }

// Lock prevents job to run from multiple instances of gocron.
func (j *Job) Lock() *Job { return j }

// Minutes sets the unit with minutes.
func (j *Job) Minutes() *Job { return j }

// Scheduler struct.
type Scheduler struct{}

// NewScheduler creates a new scheduler.
func NewScheduler() *Scheduler { return &Scheduler{} }

// Every schedules a new periodic job with interval.
func (s *Scheduler) Every(interval uint64) *Job { return &Job{} }

// Start all the pending jobs.
func (s *Scheduler) Start() chan bool { return make(chan bool) }

// Every begins a job on the default scheduler.
func Every(interval uint64) *Job { return &Job{} }

// Start runs the default scheduler.
func Start() chan bool { return make(chan bool) }
