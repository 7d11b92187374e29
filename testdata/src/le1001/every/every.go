// Package every is a project helper that schedules a function: its call
// sites are scheduler sites (a fact).
package every

import (
	"context"
	"time"
)

// Run calls fn every d until ctx ends.
func Run(ctx context.Context, d time.Duration, fn func(context.Context)) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn(ctx)
		}
	}
}
