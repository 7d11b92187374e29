// Package xclaim: workers that keep the lease of the job they took from a
// queue of another package (txqueue) alive while they run it. The
// heartbeat is keyed by the job's ID; whether that is per-job work or
// every replica's depends on whether the queue's result is a claim's
// answer, which only txqueue's facts tell.
package xclaim

import (
	"context"
	"time"

	"le1001/xclaim/txqueue"
)

type Worker struct {
	q *txqueue.Queue
}

// Negative: the heartbeat is keyed by the ID of the job Take claimed.
func (w *Worker) runTaken(ctx context.Context, run func(*txqueue.Job)) {
	j, err := w.q.Take(ctx)
	if err != nil || j == nil {
		return
	}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(20 * time.Second):
				w.q.Heartbeat(ctx, j.ID)
			}
		}
	}()
	run(j)
}

// Positive twin: the same heartbeat over a job Peek only read.
func (w *Worker) runPeeked(ctx context.Context, run func(*txqueue.Job)) {
	j, err := w.q.Peek(ctx)
	if err != nil || j == nil {
		return
	}
	go func() {
		for { // want `for loop paced by time.After runs loop body on every replica every 20s: it increments table jobs \(via txqueue.\(\*Queue\).Heartbeat\); guarded by nothing`
			select {
			case <-ctx.Done():
				return
			case <-time.After(20 * time.Second):
				w.q.Heartbeat(ctx, j.ID)
			}
		}
	}()
	run(j)
}

// Positive twin: the job comes from an UPDATE that claims nothing.
func (w *Worker) runTouched(ctx context.Context, run func(*txqueue.Job)) {
	j, err := w.q.Touch(ctx)
	if err != nil || j == nil {
		return
	}
	go func() {
		for { // want `for loop paced by time.After runs loop body on every replica every 20s: it increments table jobs \(via txqueue.\(\*Queue\).Heartbeat\); guarded by nothing`
			select {
			case <-ctx.Done():
				return
			case <-time.After(20 * time.Second):
				w.q.Heartbeat(ctx, j.ID)
			}
		}
	}()
	run(j)
}

// Negative: TakeWait's result cell holds the claimed job or nil.
func (w *Worker) runWaited(ctx context.Context) {
	j, err := w.q.TakeWait(ctx, time.Second)
	if err != nil {
		return
	}
	for range time.Tick(20 * time.Second) {
		w.q.Heartbeat(ctx, j.ID)
	}
}

// Negative: TakeID returns the claimed ID, or 0 when nothing was claimed.
func (w *Worker) runByID(ctx context.Context) {
	id, err := w.q.TakeID(ctx)
	if err != nil {
		return
	}
	for range time.Tick(20 * time.Second) {
		w.q.Heartbeat(ctx, id)
	}
}

// Positive twin: on the path that claimed nothing the ID is 1, a job every
// replica names.
func (w *Worker) runByIDOrFirst(ctx context.Context) {
	id, err := w.q.TakeIDOrFirst(ctx)
	if err != nil {
		return
	}
	for range time.Tick(20 * time.Second) { // want `time.Tick runs loop body on every replica every 20s: it increments table jobs \(via txqueue.\(\*Queue\).Heartbeat\); guarded by nothing`
		w.q.Heartbeat(ctx, id)
	}
}

// Negative: the ID returned directly, 0 when nothing was claimed.
func (w *Worker) runByIDOrZero(ctx context.Context) {
	id, err := w.q.TakeIDOrZero(ctx)
	if err != nil {
		return
	}
	for range time.Tick(20 * time.Second) {
		w.q.Heartbeat(ctx, id)
	}
}

// Positive twin: the constant 1 returned directly on the path that claimed
// nothing.
func (w *Worker) runByIDOrOne(ctx context.Context) {
	id, err := w.q.TakeIDOrOne(ctx)
	if err != nil {
		return
	}
	for range time.Tick(20 * time.Second) { // want `time.Tick runs loop body on every replica every 20s: it increments table jobs \(via txqueue.\(\*Queue\).Heartbeat\); guarded by nothing`
		w.q.Heartbeat(ctx, id)
	}
}

// Positive twin: one path of TakeOrPeek claims, the other only reads.
func (w *Worker) runTakenOrPeeked(ctx context.Context, peek bool) {
	j, err := w.q.TakeOrPeek(ctx, peek)
	if err != nil || j == nil {
		return
	}
	for range time.Tick(20 * time.Second) { // want `time.Tick runs loop body on every replica every 20s: it increments table jobs \(via txqueue.\(\*Queue\).Heartbeat\); guarded by nothing`
		w.q.Heartbeat(ctx, j.ID)
	}
}

// Negative: keyed by the lease's JobID, the claimed field.
func (w *Worker) runLeased(ctx context.Context) {
	l, err := w.q.Lease(ctx)
	if err != nil {
		return
	}
	go func() {
		for range time.Tick(20 * time.Second) {
			w.q.Heartbeat(ctx, l.JobID)
		}
	}()
}

// Positive twin: keyed by the lease's Owner, a field the claim did not
// fill.
func (w *Worker) runLeasedByOwner(ctx context.Context) {
	l, err := w.q.Lease(ctx)
	if err != nil {
		return
	}
	go func() {
		for range time.Tick(20 * time.Second) { // want `time.Tick runs loop body on every replica every 20s: it increments table jobs \(via txqueue.\(\*Queue\).CountOwner\); guarded by nothing`
			w.q.CountOwner(ctx, l.Owner)
		}
	}()
}
