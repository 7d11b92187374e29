package le4001

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/leaderelection"
)

func enqueueDue(ctx context.Context) {}

// Leadership checked once, then a loop that runs forever.
func schedulerOnce(ctx context.Context, le *leaderelection.LeaderElector) {
	if !le.IsLeader() { // want `le.IsLeader is checked once, before a long-running loop that never checks it again`
		return
	}
	t := time.NewTicker(30 * time.Second)
	defer t.Stop()
	for range t.C {
		enqueueDue(ctx)
	}
}

// Correct: checked on every tick.
func schedulerEachTick(ctx context.Context, le *leaderelection.LeaderElector) {
	t := time.NewTicker(30 * time.Second)
	defer t.Stop()
	for range t.C {
		if !le.IsLeader() {
			continue
		}
		enqueueDue(ctx)
	}
}

// A one-shot action behind the check is fine.
func cleanupOnce(ctx context.Context, le *leaderelection.LeaderElector) {
	if le.IsLeader() {
		enqueueDue(ctx)
	}
}

// The same through wait.Forever.
func sweeperOnce(ctx context.Context, le *leaderelection.LeaderElector) {
	if le.IsLeader() { // want `le.IsLeader is checked once, before a long-running loop`
		wait.Forever(func() { enqueueDue(ctx) }, time.Minute)
	}
}

// wait.Forever that checks on every run: fine.
func sweeperEachRun(ctx context.Context, le *leaderelection.LeaderElector) {
	wait.Forever(func() {
		if le.IsLeader() {
			enqueueDue(ctx)
		}
	}, time.Minute)
}
