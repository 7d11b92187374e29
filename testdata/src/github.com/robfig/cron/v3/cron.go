// Package cron is a stub of github.com/robfig/cron/v3 for analysistest: the
// real signatures, trivial bodies.
package cron

type EntryID int

type Job interface{ Run() }

type Schedule interface{}

type Cron struct{}

type Option func(*Cron)

func New(opts ...Option) *Cron { return &Cron{} }

func (c *Cron) AddFunc(spec string, cmd func()) (EntryID, error) { return 0, nil }
func (c *Cron) AddJob(spec string, cmd Job) (EntryID, error)     { return 0, nil }
func (c *Cron) Schedule(schedule Schedule, cmd Job) EntryID      { return 0 }
func (c *Cron) Start()                                           {}
func (c *Cron) Stop()                                            {}

// FuncJob is a wrapper that turns a func() into a cron.Job.
type FuncJob func()

func (f FuncJob) Run() { f() }

// JobWrapper decorates the given Job with some behavior.
type JobWrapper func(Job) Job

// Chain is a sequence of JobWrappers.
type Chain struct{ wrappers []JobWrapper }

func NewChain(c ...JobWrapper) Chain { return Chain{c} }

func (c Chain) Then(j Job) Job { return j }

type Logger interface {
	Info(msg string, keysAndValues ...interface{})
}

func SkipIfStillRunning(logger Logger) JobWrapper { return nil }
func Recover(logger Logger) JobWrapper            { return nil }
