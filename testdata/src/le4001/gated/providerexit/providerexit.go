package providerexit // want package:"elected fields: le4001/gated/config.Server.Elected closed after \\(manager.Manager\\).Elected\\(\\)"

// Package providerexit starts the provider like providerrunner but ends the
// process when the provider fails: losing the lease stops everything.

import (
	"context"
	"log"

	"k8s.io/client-go/rest"

	"le4001/gated/config"
	"le4001/gated/provider"
)

// Run starts the provider and exits on its error.
func Run(ctx context.Context, restCfg *rest.Config, cfg *config.Server) error {
	p, err := provider.New(restCfg, cfg)
	if err != nil {
		return err
	}
	go func() {
		if err := p.Start(ctx); err != nil {
			log.Fatalf("provider stopped: %v", err)
		}
	}()
	return nil
}
