package lostcancel

import (
	"context"
	"errors"
	"time"

	"github.com/go-redsync/redsync/v4"
)

var errExtendLost = errors.New("extend lost")

// Keeper holds a redsync mutex while its work runs.
type Keeper struct {
	mu    *redsync.Mutex
	every time.Duration
	work  func(context.Context)
}

// keep extends the mutex until an extension fails.
func (k *Keeper) keep(ctx context.Context) error { // want keep:"renews via \\(redsync.Mutex\\).ExtendContext"
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(k.every):
		}
		ok, err := k.mu.ExtendContext(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return errExtendLost
		}
	}
}

// Serve starts the work on a term's context and, once keep returns,
// waits and locks again with the work still running.
func (k *Keeper) Serve(ctx context.Context) {
	for ctx.Err() == nil {
		if err := k.mu.LockContext(ctx); err != nil {
			time.Sleep(k.every)
			continue
		}
		termCtx, cancel := context.WithTimeout(ctx, time.Hour)
		defer cancel()
		go k.work(termCtx)
		if err := k.keep(termCtx); errors.Is(err, context.Canceled) { // want `keep returns when renewing`
			return
		}
		time.Sleep(k.every)
	}
}
