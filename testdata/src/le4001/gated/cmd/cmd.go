package cmd // want package:"elected fields: le4001/gated/config.Server.Elected closed after \\(manager.Manager\\).Elected\\(\\)" package:"leadership loss only logged for le4001/gated/provider" package:"reported: le4001/gated/runner/runner.go:29, le4001/gated/runner/runner.go:31"

import (
	"context"

	"k8s.io/client-go/rest"

	"le4001/gated/config"
	"le4001/gated/providerrunner"
	"le4001/gated/runner"
)

// Serve wires the provider and the runners through one configuration.
func Serve(ctx context.Context, restCfg *rest.Config) error {
	cfg := &config.Server{Name: "fixture", Elected: make(chan struct{}), Synced: make(chan struct{})}
	if err := providerrunner.Run(ctx, restCfg, cfg); err != nil {
		return err
	}
	infra := runner.New(cfg) // want `leader work r.apply.Run \(le4001/gated/runner/runner.go:29\), r.apply.RunPrune \(le4001/gated/runner/runner.go:31\) waits for le4001/gated/config.Server.Elected \(closed once at le4001/gated/provider/provider.go:\d+ after \(manager.Manager\).Elected\(\), never reset\) to signal leadership, then runs on ctx, a context captured from Start, which losing the lease does not cancel; leadership loss is only logged \(le4001/gated/providerrunner/providerrunner.go:\d+\)`
	warm := runner.NewWarmer(cfg)
	if err := infra.Start(ctx); err != nil {
		return err
	}
	return warm.Start(ctx)
}
