// Package le4001 holds the LE4001 fixtures: leader work not bound to
// leadership.
package le4001

import (
	"context"
	"os"
	"time"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

type reconciler struct{}

func (r *reconciler) Run(ctx context.Context, workers int) { <-ctx.Done() }
func (r *reconciler) RunWithContext(ctx context.Context)   { <-ctx.Done() }
func (r *reconciler) Start(stopCh <-chan struct{})         { <-stopCh }
func (r *reconciler) sync(ctx context.Context)             {}
func (r *reconciler) Sync(ctx context.Context) error       { return nil }

func newLock(id string) resourcelock.Interface {
	return &resourcelock.LeaseLock{LockConfig: resourcelock.ResourceLockConfig{Identity: id}}
}

// The callback ignores its ctx and runs the controller on the process ctx;
// losing the lease is only logged.
func runCapturedCtx(ctx context.Context, r *reconciler) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock:          newLock("a"),
		LeaseDuration: 15 * time.Second,
		RenewDeadline: 10 * time.Second,
		RetryPeriod:   2 * time.Second,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leaderCtx context.Context) {
				r.Run(ctx, 2) // want `leader callback starts r.Run with ctx, a context captured from runCapturedCtx, not the leader context leaderCtx`
			},
			OnStoppedLeading: func() {
				klog.Infof("leader lost: %s", os.Getenv("HOSTNAME"))
			},
		},
	})
}

// An unnamed callback parameter: every context in the body is someone else's.
func runUnnamed(ctx context.Context, r *reconciler) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: newLock("b"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) {
				go r.RunWithContext(context.Background())                   // want `leader callback starts r.RunWithContext with context.Background\(\)`
				wait.Until(func() { r.sync(ctx) }, time.Minute, ctx.Done()) // want `leader callback starts wait.Until with the Done channel of ctx, a context captured from runUnnamed`
			},
			OnStoppedLeading: func() {},
		},
	})
}

var processCtx = context.TODO()

// Work built on context.TODO() and a derived context.
func runDerivedFromTODO(ctx context.Context, r *reconciler) {
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: newLock("c"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				workCtx, cancel := context.WithTimeout(context.TODO(), time.Hour)
				r.RunWithContext(workCtx) // want `leader callback starts r.RunWithContext with workCtx \(derived from context.TODO\(\)\)`
				cancel()
				r.Start(processCtx.Done()) // want `leader callback starts r.Start with the Done channel of processCtx, a package-level context`
			},
			OnStoppedLeading: func() { klog.InfoS("stopped leading") },
		},
	})
	if err != nil {
		klog.Fatal(err)
	}
	le.Run(ctx)
}

// A declared function as the callback, detaching from the leader context.
func leaderWork(ctx context.Context) {
	r := &reconciler{}
	r.Run(context.WithoutCancel(ctx), 1) // want `leader callback starts r.Run with context.WithoutCancel`
}

func runDeclared(ctx context.Context) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: newLock("d"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: leaderWork,
			OnStoppedLeading: func() { klog.Info("lost") },
		},
	})
}

// --- negatives ---

// The callback uses its ctx and only logs on stop: correct.
func runGood(ctx context.Context, r *reconciler) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock:          newLock("e"),
		LeaseDuration: 15 * time.Second,
		RenewDeadline: 10 * time.Second,
		RetryPeriod:   2 * time.Second,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				ctx, cancel := context.WithCancel(ctx)
				defer cancel()
				go r.Run(ctx, 2)
				wait.UntilWithContext(ctx, r.sync, time.Minute)
				r.Start(ctx.Done())
			},
			OnStoppedLeading: func() { klog.Info("stopped leading") },
		},
	})
}

// kube-controller-manager style: the process context, but losing the lease
// exits the process.
func runExitOnLoss(ctx context.Context, r *reconciler) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: newLock("f"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { r.Run(ctx, 5) },
			OnStoppedLeading: func() {
				klog.ErrorS(nil, "leaderelection lost")
				klog.FlushAndExit(time.Second, 1)
			},
		},
	})
}

// The stop callback cancels the work's context.
func runCancelOnLoss(r *reconciler) {
	ctx, cancel := context.WithCancel(context.Background())
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: newLock("g"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { r.Run(ctx, 5) },
			OnStoppedLeading: cancel,
		},
	})
}

type server struct {
	ctx context.Context
	r   *reconciler
}

// A context from a struct field, and calls that are not work starts: unknown.
func (s *server) runFieldCtx() {
	leaderelection.RunOrDie(s.ctx, leaderelection.LeaderElectionConfig{
		Lock: newLock("h"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				s.r.Run(s.ctx, 1)
				_ = s.r.Sync(context.Background()) // a one-shot call, not long-running work
			},
			OnStoppedLeading: func() { klog.Info("lost") },
		},
	})
}

// The leader context is stored for later and used through the variable.
func runStored(ctx context.Context, r *reconciler) {
	var leaderCtx context.Context
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: newLock("i"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				leaderCtx = ctx
				r.Run(leaderCtx, 1)
			},
			OnStoppedLeading: func() { klog.Info("lost") },
		},
	})
}

// The callback is a closure in a variable, as kube components write it.
func runClosure(r *reconciler) {
	ctx := context.Background()
	run := func(lctx context.Context) {
		go r.Run(ctx, 3) // want `leader callback starts r.Run with ctx, a context captured from runClosure`
		<-lctx.Done()
	}
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: newLock("j"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: run,
			OnStoppedLeading: func() { klog.Info("leader lost") },
		},
	})
}

// The same closure with a stop closure that exits: silent.
func runClosureExit(r *reconciler) {
	ctx := context.Background()
	run := func(context.Context) { r.Run(ctx, 3) }
	stop := func() { klog.Fatalf("leaderelection lost") }
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: newLock("k"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: run,
			OnStoppedLeading: stop,
		},
	})
}

// The callback cancels the work's context itself once leadership ends.
func runCancelInside(r *reconciler) {
	leaderelection.RunOrDie(context.Background(), leaderelection.LeaderElectionConfig{
		Lock: newLock("l"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				workCtx, cancel := context.WithCancel(context.Background())
				go r.Run(workCtx, 2)
				<-ctx.Done()
				cancel()
			},
			OnStoppedLeading: func() { klog.Info("lost") },
		},
	})
}

// A captured stop channel that the callback closes when leadership ends.
func runCloseInside(r *reconciler) {
	stopCh := make(chan struct{})
	workCtx, cancelWork := context.WithCancel(context.Background())
	leaderelection.RunOrDie(context.Background(), leaderelection.LeaderElectionConfig{
		Lock: newLock("m"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				go r.Start(stopCh)
				go r.RunWithContext(workCtx)
				<-ctx.Done()
				close(stopCh)
				cancelWork()
			},
			OnStoppedLeading: func() { klog.Info("lost") },
		},
	})
}

type metricsServer struct{}

func (m *metricsServer) Serve(ctx context.Context) error        { return nil }
func (m *metricsServer) StartHealthz(ctx context.Context) error { return nil }

// Per-replica plumbing started from the callback on the process context.
func runWithServers(ctx context.Context, r *reconciler, m *metricsServer) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: newLock("n"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(lctx context.Context) {
				go m.Serve(ctx)
				go m.StartHealthz(ctx)
				r.Run(lctx, 2)
			},
			OnStoppedLeading: func() { klog.Info("lost") },
		},
	})
}

// An errgroup on the process context: its goroutines outlive leadership.
func runErrgroup(ctx context.Context, r *reconciler) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: newLock("o"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(lctx context.Context) {
				g, gctx := errgroup.WithContext(ctx)
				g.Go(func() error { r.RunWithContext(gctx); return nil }) // want `leader callback starts r.RunWithContext with gctx \(derived from ctx, a context captured from runErrgroup\)`
				_ = g.Wait()
			},
			OnStoppedLeading: func() { klog.Info("lost") },
		},
	})
}

// The same on the leader context: fine.
func runErrgroupGood(ctx context.Context, r *reconciler) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: newLock("p"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				g, gctx := errgroup.WithContext(ctx)
				g.Go(func() error { r.RunWithContext(gctx); return nil })
				_ = g.Wait()
			},
			OnStoppedLeading: func() { klog.Info("lost") },
		},
	})
}

// kube-component style: the work lives in a closure the callback calls.
func runViaClosure(ctx context.Context, r *reconciler) {
	startControllers := func(lctx context.Context) {
		go r.Run(ctx, 4) // want `leader callback starts r.Run with ctx, a context captured from runViaClosure`
		r.RunWithContext(lctx)
	}
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: newLock("q"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) { startControllers(ctx) },
			OnStoppedLeading: func() { klog.Info("lost") },
		},
	})
}

// The closure is handed the process context by the callback.
func runViaClosureWrongArg(ctx context.Context, r *reconciler) {
	startControllers := func(c context.Context) { r.RunWithContext(c) }
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: newLock("r"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(_ context.Context) {
				startControllers(ctx) // want `leader callback starts startControllers with ctx, a context captured from runViaClosureWrongArg`
			},
			OnStoppedLeading: func() { klog.Info("lost") },
		},
	})
}

// Correct: the closure runs everything on the context it is given.
func runViaClosureGood(ctx context.Context, r *reconciler) {
	startControllers := func(ctx context.Context) {
		go r.Run(ctx, 4)
		r.RunWithContext(ctx)
	}
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: newLock("s"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) { startControllers(ctx) },
			OnStoppedLeading: func() { klog.Info("lost") },
		},
	})
}

// The closure only logs: nothing long-running is started on the wrong ctx.
func runViaClosureNoWork(ctx context.Context, r *reconciler) {
	announce := func(c context.Context) { klog.InfoS("leading") }
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: newLock("t"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(lctx context.Context) {
				announce(ctx)
				r.Run(lctx, 1)
			},
			OnStoppedLeading: func() { klog.Info("lost") },
		},
	})
}

type span struct{}

func (span) End() {}

type tracer struct{}

func (tracer) Start(ctx context.Context, name string) (context.Context, span) { return ctx, span{} }

// A tracing span started on the process context runs nothing.
func runTraced(ctx context.Context, r *reconciler, tr tracer) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: newLock("u"),
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(lctx context.Context) {
				_, sp := tr.Start(ctx, "leading")
				defer sp.End()
				r.Run(lctx, 1)
			},
			OnStoppedLeading: func() { klog.Info("lost") },
		},
	})
}
