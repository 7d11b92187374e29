package single // want package:"leadership loss only logged for le4001/gated/single" package:"reported: le4001/gated/single/single.go:\\d+"

import (
	"context"
	"log"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

type sweeper struct{}

func (sweeper) Run(ctx context.Context) { <-ctx.Done() }

// Main runs the manager in a goroutine that only logs its error, and
// sweeps once elected, on the process context.
func Main(ctx context.Context, restCfg *rest.Config) { // want Main:"gated work: sweeper\\{\\}.Run on ctx, a context captured from Main after Elected\\(\\) of le4001/gated/single; sweeper\\{\\}.Run on context.Background\\(\\)"
	mgr, err := manager.New(restCfg, manager.Options{LeaderElection: true})
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		if err := mgr.Start(ctx); err != nil {
			log.Printf("manager: %v", err)
		}
	}()
	go func() {
		<-mgr.Elected()
		sweeper{}.Run(ctx) // want `leader work sweeper\{\}.Run .* waits for the manager's Elected\(\) to signal leadership, then runs on ctx, a context captured from Main`
	}()
	go func() {
		<-mgr.Elected()
		sweeper{}.Run(context.Background()) // want `leader work sweeper\{\}.Run .* runs on context.Background\(\)`
	}()
	<-ctx.Done()
}

// syncer is a Runnable: the manager gives it a ctx it cancels when it stops,
// and it stops when the lease is lost.
type syncer struct {
	mgr   manager.Manager
	sweep sweeper
}

func (s *syncer) Start(ctx context.Context) error {
	<-s.mgr.Elected()
	s.sweep.Run(ctx)
	return nil
}

// Begin is not a Runnable's Start: its ctx is its caller's.
func (s *syncer) Begin(ctx context.Context) error { // want Begin:"gated work: s.sweep.Run on ctx"
	<-s.mgr.Elected()
	s.sweep.Run(ctx) // want `leader work s.sweep.Run .* runs on ctx, a context captured from Begin`
	return nil
}
