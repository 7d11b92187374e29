// Package cronreg registers jobs through a struct field (Gitea-style) and
// writes through a project interface over *sql.DB (a facade).
package cronreg

import (
	"context"
	"database/sql"

	"github.com/robfig/cron/v3"
)

// Engine is the project's own facade over the database.
type Engine interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

var (
	engine    Engine
	scheduler = cron.New()
)

type Task struct {
	Name string
	fun  func(ctx context.Context) error
}

// Run is what the scheduler calls; the work is in t.fun.
func (t *Task) Run() {
	t.run(context.Background())
}

func (t *Task) run(ctx context.Context) {
	if err := t.fun(ctx); err != nil {
		return
	}
}

// RegisterTask stores fun in a Task and schedules the task.
func RegisterTask(name, spec string, fun func(ctx context.Context) error) {
	t := &Task{Name: name, fun: fun}
	scheduler.AddFunc(spec, t.Run)
}

// MustRegister forwards to RegisterTask.
func MustRegister(name, spec string, fun func(ctx context.Context) error) {
	RegisterTask(name, spec, fun)
}

func Init() {
	MustRegister("reminders", "@hourly", func(ctx context.Context) error { // want `cronreg.MustRegister runs func literal on every replica: it inserts into table reminders`
		_, err := engine.ExecContext(ctx, `INSERT INTO reminders (user_id) SELECT id FROM users WHERE remind`)
		return err
	})
	MustRegister("gc", "@daily", func(ctx context.Context) error { // idempotent: silent
		_, err := engine.ExecContext(ctx, `DELETE FROM uploads WHERE expires_at < now()`)
		return err
	})
}
