package cmdexit // want package:"elected fields: le4001/gated/config.Server.Elected closed after \\(manager.Manager\\).Elected\\(\\)"

// Package cmdexit wires the same runner, but the provider's failure ends
// the process: no report.

import (
	"context"

	"k8s.io/client-go/rest"

	"le4001/gated/config"
	"le4001/gated/providerexit"
	"le4001/gated/runner"
)

// Serve wires the provider and the runner through one configuration.
func Serve(ctx context.Context, restCfg *rest.Config) error {
	cfg := &config.Server{Name: "fixture", Elected: make(chan struct{})}
	if err := providerexit.Run(ctx, restCfg, cfg); err != nil {
		return err
	}
	return runner.New(cfg).Start(ctx)
}
