// Package envtest sweeps once elected on the process context; only its test
// runs the manager and drops the error, which says nothing of the deployed
// process.
package envtest

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
		os.Exit(1)
	}
}
