// Package singleexit is single's program with the manager's error turned
// into an exit: losing the lease ends the process, and the sweeper with it.
package singleexit

import (
	"context"
	"log"
	"os"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

type sweeper struct{}

func (sweeper) Run(ctx context.Context) { <-ctx.Done() }

// Main exits when the manager returns.
func Main(ctx context.Context, restCfg *rest.Config) { // want Main:"gated work: sweeper\\{\\}.Run on ctx"
	mgr, err := manager.New(restCfg, manager.Options{LeaderElection: true})
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		<-mgr.Elected()
		sweeper{}.Run(ctx)
	}()
	if err := mgr.Start(ctx); err != nil {
		log.Printf("manager: %v", err)
		os.Exit(1)
	}
}

// Background runs the manager in a goroutine that exits on its error.
func Background(ctx context.Context, restCfg *rest.Config) { // want Background:"gated work: sweeper\\{\\}.Run on ctx"
	mgr, err := manager.New(restCfg, manager.Options{LeaderElection: true})
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		if err := mgr.Start(ctx); err != nil {
			log.Fatalf("manager: %v", err)
		}
	}()
	go func() {
		<-mgr.Elected()
		sweeper{}.Run(ctx)
	}()
	<-ctx.Done()
}
