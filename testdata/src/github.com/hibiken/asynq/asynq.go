// Package asynq is a stub of github.com/hibiken/asynq for analysistest.
package asynq

type Task struct{}

type Option interface{}

type TaskInfo struct{ ID string }

type RedisClientOpt struct{ Addr string }

type SchedulerOpts struct{}

type Scheduler struct{}

func NewTask(typename string, payload []byte, opts ...Option) *Task { return &Task{} }

func NewScheduler(r RedisClientOpt, opts *SchedulerOpts) *Scheduler { return &Scheduler{} }

func (s *Scheduler) Register(cronspec string, task *Task, opts ...Option) (string, error) {
	return "", nil
}
func (s *Scheduler) Run() error { return nil }

type Client struct{}

func NewClient(r RedisClientOpt) *Client { return &Client{} }

func (c *Client) Enqueue(task *Task, opts ...Option) (*TaskInfo, error) { return nil, nil }

type Server struct{}

func (s *Server) Run(handler any) error { return nil }
