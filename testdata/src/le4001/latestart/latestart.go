// Package latestart holds the stored start callbacks that a late
// registration starts on a context that is not the leader's.
package latestart

import (
	"context"
	"sync"

	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

type hook struct {
	begin func(context.Context)
	end   func()
}

func elect(begin func(context.Context), end func()) (*leaderelection.LeaderElector, error) { // want elect:"forwards param 0 as OnStartedLeading \\(stop 1, stops work true\\)"
	return leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{},
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: begin,
			OnStoppedLeading: end,
		},
	})
}

// Registry stores hooks in a slice; a hook added while leading is begun on
// context.Background().
type Registry struct {
	mu      sync.Mutex
	hooks   []hook
	leading bool
}

func (r *Registry) Add(begin func(context.Context), end func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hooks = append(r.hooks, hook{begin: begin, end: end})
	if r.leading {
		begin(context.Background()) // want `stored leader callback begin \(field begin\) is started with context.Background\(\)`
	}
}

func (r *Registry) won(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.leading = true
	for _, h := range r.hooks {
		h.begin(ctx)
	}
}

func (r *Registry) lost() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.leading = false
	for _, h := range r.hooks {
		h.end()
	}
}

func (r *Registry) Start(ctx context.Context) error {
	le, err := elect(r.won, r.lost)
	if err != nil {
		return err
	}
	go le.Run(ctx)
	return nil
}

// SavedRegistry is Registry's twin that begins a late hook on the leader
// context it saved: silent.
type SavedRegistry struct {
	mu        sync.Mutex
	hooks     []hook
	leaderCtx context.Context
}

func (r *SavedRegistry) Add(begin func(context.Context), end func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hooks = append(r.hooks, hook{begin: begin, end: end})
	if r.leaderCtx != nil {
		begin(r.leaderCtx)
	}
}

func (r *SavedRegistry) won(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.leaderCtx = ctx
	for _, h := range r.hooks {
		h.begin(ctx)
	}
}

func (r *SavedRegistry) lost() {}

func (r *SavedRegistry) Start(ctx context.Context) error {
	le, err := elect(r.won, r.lost)
	if err != nil {
		return err
	}
	go le.Run(ctx)
	return nil
}

// OwnCtxRegistry begins a late hook on the context its caller gives: the
// caller's, not provably detached: silent.
type OwnCtxRegistry struct {
	hooks   []hook
	leading bool
}

func (r *OwnCtxRegistry) Add(ctx context.Context, begin func(context.Context)) {
	r.hooks = append(r.hooks, hook{begin: begin})
	if r.leading {
		begin(ctx)
	}
}

func (r *OwnCtxRegistry) won(ctx context.Context) {
	r.leading = true
	for _, h := range r.hooks {
		h.begin(ctx)
	}
}

func (r *OwnCtxRegistry) Start(ctx context.Context) error {
	le, err := elect(r.won, func() {})
	if err != nil {
		return err
	}
	go le.Run(ctx)
	return nil
}

// single keeps one func field, called directly by a callbacks literal and
// by Kick on context.TODO().
type single struct {
	work func(context.Context)
}

func (s *single) Run(ctx context.Context) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{},
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leaderCtx context.Context) { s.work(leaderCtx) },
			OnStoppedLeading: func() {},
		},
	})
}

func (s *single) Kick() {
	s.work(context.TODO()) // want `stored leader callback s.work \(field work\) is started with context.TODO\(\)`
}

// notifier is single's twin whose func field no election calls: Kick's
// context.TODO() is no leader work: silent.
type notifier struct {
	work func(context.Context)
}

func (n *notifier) Fire(ctx context.Context) { n.work(ctx) }

func (n *notifier) Kick() { n.work(context.TODO()) }

// pair is single's twin whose election calls work while Idle calls idle,
// another field: silent.
type pair struct {
	work func(context.Context)
	idle func(context.Context)
}

func (p *pair) Run(ctx context.Context) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{},
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leaderCtx context.Context) { p.work(leaderCtx) },
			OnStoppedLeading: func() {},
		},
	})
}

func (p *pair) Idle() { p.idle(context.Background()) }

// tracer is single's twin whose election calls its stored trace with a
// context it keeps (not the leader's), so that field holds no leader work and
// Late's context.Background() starts none: silent.
type tracer struct {
	base  context.Context
	work  func(context.Context)
	trace func(context.Context, string)
}

func (t *tracer) Run(ctx context.Context) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{},
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leaderCtx context.Context) {
				t.trace(t.base, "leading")
				t.work(leaderCtx)
			},
			OnStoppedLeading: func() {},
		},
	})
}

func (t *tracer) Late() { t.trace(context.Background(), "late") }
