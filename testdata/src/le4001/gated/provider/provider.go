package provider // want package:"elected fields: le4001/gated/config.Server.Elected closed after \\(manager.Manager\\).Elected\\(\\)"

import (
	"context"
	"log"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"le4001/gated/config"
)

// Provider owns the controller-runtime manager.
type Provider struct {
	mgr manager.Manager
}

// New builds the manager and closes cfg.Elected once it is elected.
func New(restCfg *rest.Config, cfg *config.Server) (*Provider, error) {
	mgr, err := manager.New(restCfg, manager.Options{LeaderElection: true, LeaderElectionID: "fixture"})
	if err != nil {
		return nil, err
	}
	go func() {
		<-mgr.Elected()
		log.Printf("%s: elected", cfg.Name)
		close(cfg.Elected)
	}()
	return &Provider{mgr: mgr}, nil
}

// Start runs the manager until ctx ends or the manager fails; losing the
// lease is such a failure, handed to the caller.
func (p *Provider) Start(ctx context.Context) error { // want Start:"returns the manager error of le4001/gated/provider"
	errs := make(chan error)
	go func() {
		errs <- p.mgr.Start(ctx)
	}()
	select {
	case <-ctx.Done():
		return nil
	case err := <-errs:
		return err
	}
}
