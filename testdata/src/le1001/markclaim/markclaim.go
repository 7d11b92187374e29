// Package markclaim: a queue loop that runs a task only after claiming it
// through a helper of another package (tasks) whose bool answer says
// whether this replica won.
package markclaim

import (
	"context"
	"time"

	"le1001/markclaim/tasks"
)

type Runner struct{ s *tasks.Store }

func (r *Runner) do(ctx context.Context, t *tasks.Task) {
	ok, err := r.s.MarkDispatched(ctx, t)
	if err != nil || !ok {
		return
	}
	r.s.Record(ctx, t, "done")
}

// Negative: every task run was claimed by MarkDispatched.
func (r *Runner) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		t, err := r.s.Next(ctx)
		if err != nil || t == nil {
			continue
		}
		r.do(ctx, t)
	}
}

type Toucher struct{ s *tasks.Store }

func (r *Toucher) do(ctx context.Context, t *tasks.Task) {
	ok, err := r.s.Touch(ctx, t)
	if err != nil || !ok {
		return
	}
	r.s.Record(ctx, t, "done")
}

// Positive twin: Touch's UPDATE has no condition on the old value.
func (r *Toucher) Run(ctx context.Context) {
	for { // want `for loop paced by time.After runs loop body on every replica`
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		t, err := r.s.Next(ctx)
		if err != nil || t == nil {
			continue
		}
		r.do(ctx, t)
	}
}

type Ignorer struct{ s *tasks.Store }

func (r *Ignorer) do(ctx context.Context, t *tasks.Task) {
	r.s.MarkDispatched(ctx, t)
	r.s.Record(ctx, t, "done")
}

// Positive twin: the claim's answer is dropped.
func (r *Ignorer) Run(ctx context.Context) {
	for { // want `for loop paced by time.After runs loop body on every replica`
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		t, err := r.s.Next(ctx)
		if err != nil || t == nil {
			continue
		}
		r.do(ctx, t)
	}
}
