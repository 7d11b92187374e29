package providerrunner // want package:"elected fields: le4001/gated/config.Server.Elected closed after \\(manager.Manager\\).Elected\\(\\)" package:"leadership loss only logged for le4001/gated/provider"

import (
	"context"
	"log"

	"k8s.io/client-go/rest"

	"le4001/gated/config"
	"le4001/gated/provider"
)

type starter interface {
	Start(ctx context.Context) error
}

// Run starts the provider; its error, leadership lost among them, is only
// logged, and the process goes on.
func Run(ctx context.Context, restCfg *rest.Config, cfg *config.Server) error {
	var p starter
	p, err := provider.New(restCfg, cfg)
	if err != nil {
		return err
	}
	go func() {
		if err := p.Start(ctx); err != nil {
			log.Printf("provider stopped: %v", err)
		}
	}()
	return nil
}
