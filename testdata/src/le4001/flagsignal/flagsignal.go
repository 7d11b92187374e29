// Package flagsignal: leadership reduced to a value on a channel. The
// OnStartedLeading callback drops its leader context and sends true, the
// OnStoppedLeading callback sends false; the receiver starts goroutines
// while the value is true. Written for this repository.
package flagsignal

import (
	"context"
	"log"
	"os"
	"time"

	"k8s.io/client-go/tools/leaderelection"
)

type store struct{}

func (store) List() []string         { return nil }
func (store) Assign(id string) error { return nil }

// assigner: the channel is a parameter of the election helper, made and
// received by Run.
type assigner struct {
	st    store
	queue chan string
}

func (a *assigner) elect(ctx context.Context, leaderCh chan<- bool) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(c context.Context) {
				leaderCh <- true
			},
			OnStoppedLeading: func() {
				log.Print("lost the lease")
				leaderCh <- false
			},
		},
	})
}

func (a *assigner) resync() {
	for _, id := range a.st.List() {
		_ = a.st.Assign(id)
	}
}

func (a *assigner) Run(stop <-chan struct{}) {
	isLeader := false
	leaderCh := make(chan bool)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tick := time.NewTicker(time.Minute)
	go a.elect(ctx, leaderCh)
	for {
		select {
		case <-stop:
			return
		case isLeader = <-leaderCh:
			if isLeader {
				go a.resync() // want `leader work a.resync is started while isLeader is true`
			}
		case <-tick.C:
			if isLeader {
				go a.resync() // the same work: reported once
			}
		}
	}
}

// sweeper: the channel is a field, received by a range loop.
type sweeper struct {
	st      store
	leading chan bool
}

func (w *sweeper) elect(ctx context.Context) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { w.leading <- true },
			OnStoppedLeading: func() { w.leading <- false },
		},
	})
}

func (w *sweeper) sweep() { _ = w.st.Assign("expired") }

func (w *sweeper) loop() {
	for up := range w.leading {
		if up {
			go w.sweep() // want `leader work w.sweep is started while up is true`
		}
	}
}

// exiting: losing the lease exits the process, and the work with it.
type exiting struct{ st store }

func (e *exiting) elect(ctx context.Context, ch chan<- bool) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { ch <- true },
			OnStoppedLeading: func() { ch <- false; os.Exit(1) },
		},
	})
}

func (e *exiting) resync() { _ = e.st.Assign("x") }

func (e *exiting) Run(ctx context.Context) {
	ch := make(chan bool)
	go e.elect(ctx, ch)
	for v := range ch {
		if v {
			go e.resync()
		}
	}
}

// holding: the start callback waits on its leader context: the flag is not
// all the election left.
type holding struct{ st store }

func (h *holding) elect(ctx context.Context, ch chan<- bool) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(lctx context.Context) { ch <- true; <-lctx.Done() },
			OnStoppedLeading: func() { ch <- false },
		},
	})
}

func (h *holding) resync() { _ = h.st.Assign("x") }

func (h *holding) Run(ctx context.Context) {
	ch := make(chan bool)
	go h.elect(ctx, ch)
	for v := range ch {
		if v {
			go h.resync()
		}
	}
}

// cancelling: the receiver cancels the work's context when leadership ends.
type cancelling struct {
	st     store
	ctx    context.Context
	cancel context.CancelFunc
}

func (k *cancelling) elect(ctx context.Context, ch chan<- bool) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { ch <- true },
			OnStoppedLeading: func() { ch <- false },
		},
	})
}

func (k *cancelling) resync() {
	for k.ctx.Err() == nil {
		_ = k.st.Assign("x")
	}
}

func (k *cancelling) Run(ctx context.Context) {
	ch := make(chan bool)
	go k.elect(ctx, ch)
	for v := range ch {
		if v {
			k.ctx, k.cancel = context.WithCancel(ctx)
			go k.resync()
		} else if k.cancel != nil {
			k.cancel()
		}
	}
}

// bound: the goroutine is handed a context.
type bound struct{ st store }

func (b *bound) elect(ctx context.Context, ch chan<- bool) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { ch <- true },
			OnStoppedLeading: func() { ch <- false },
		},
	})
}

func (b *bound) resync(ctx context.Context) { _ = b.st.Assign("x") }

func (b *bound) Run(ctx context.Context) {
	ch := make(chan bool)
	go b.elect(ctx, ch)
	for v := range ch {
		if v {
			go b.resync(ctx)
		}
	}
}

// announcing: the goroutine only logs.
type announcing struct{}

func (n *announcing) elect(ctx context.Context, ch chan<- bool) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { ch <- true },
			OnStoppedLeading: func() { ch <- false },
		},
	})
}

func (n *announcing) announce() { log.Print("leading") }

func (n *announcing) Run(ctx context.Context) {
	ch := make(chan bool)
	go n.elect(ctx, ch)
	for v := range ch {
		if v {
			go n.announce()
		}
	}
}

// literal: a goroutine literal that uses a context.
type literal struct{ st store }

func (l *literal) elect(ctx context.Context, ch chan<- bool) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { ch <- true },
			OnStoppedLeading: func() { ch <- false },
		},
	})
}

func (l *literal) Run(ctx context.Context) {
	ch := make(chan bool)
	go l.elect(ctx, ch)
	for v := range ch {
		if v {
			go func() {
				for ctx.Err() == nil {
					_ = l.st.Assign("x")
				}
			}()
		}
	}
}

// literalFree: the same literal without a context: nothing stops it.
type literalFree struct{ st store }

func (l *literalFree) elect(ctx context.Context, ch chan<- bool) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { ch <- true },
			OnStoppedLeading: func() { ch <- false },
		},
	})
}

func (l *literalFree) Run(ctx context.Context) {
	ch := make(chan bool)
	go l.elect(ctx, ch)
	for v := range ch {
		if v {
			go func() { // want `leader work a goroutine literal is started while v is true`
				for {
					_ = l.st.Assign("x")
				}
			}()
		}
	}
}

// stopping: the goroutine selects on a stop channel.
type stopping struct {
	st   store
	quit chan struct{}
}

func (s *stopping) elect(ctx context.Context, ch chan<- bool) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { ch <- true },
			OnStoppedLeading: func() { ch <- false },
		},
	})
}

func (s *stopping) drain() {
	for {
		select {
		case <-s.quit:
			return
		default:
			_ = s.st.Assign("x")
		}
	}
}

func (s *stopping) Run(ctx context.Context) {
	ch := make(chan bool)
	go s.elect(ctx, ch)
	for v := range ch {
		if v {
			go s.drain()
		}
	}
}

// ranging: the goroutine ranges over a work channel, which ends when it is
// closed.
type ranging struct {
	st  store
	ids chan string
}

func (r *ranging) elect(ctx context.Context, ch chan<- bool) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { ch <- true },
			OnStoppedLeading: func() { ch <- false },
		},
	})
}

func (r *ranging) assign() {
	for id := range r.ids {
		_ = r.st.Assign(id)
	}
}

func (r *ranging) Run(ctx context.Context) {
	ch := make(chan bool)
	go r.elect(ctx, ch)
	for v := range ch {
		if v {
			go r.assign()
		}
	}
}
