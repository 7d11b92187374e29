// Package controllers starts leader-only controllers through the election
// wrapper, like kyverno's cmd/*/main.go.
package controllers

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"le4001/election"
	"le4001/platform"
)

// Controller is a reconciler that runs until its context ends.
type Controller interface {
	Run(ctx context.Context, logger logr.Logger, wg *sync.WaitGroup)
}

type informerFactory interface {
	Start(stopCh <-chan struct{})
	WaitForCacheSync(stopCh <-chan struct{})
}

func startInformersAndWaitForCacheSync(ctx context.Context, logger logr.Logger, factories ...informerFactory) bool {
	for _, f := range factories {
		f.Start(ctx.Done())
		f.WaitForCacheSync(ctx.Done())
	}
	return true
}

// StartInformersAndWaitForCacheSync is exported like kyverno's internal helper.
func StartInformersAndWaitForCacheSync(ctx context.Context, logger logr.Logger, factories ...informerFactory) bool {
	return startInformersAndWaitForCacheSync(ctx, logger, factories...)
}

func newControllers(client any) []Controller { return nil }

func newInformers(client any) informerFactory { return nil }

// Broken: the leader callback receives the leader context but starts the
// controllers with the process signal context (kyverno#5984).
func Broken(logger logr.Logger, client any) {
	signalCtx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	le, err := election.New(logger, "background-controller", "kyverno", client, os.Getenv("POD_NAME"), 2*time.Second,
		func(ctx context.Context) {
			informers := newInformers(client)
			controllers := newControllers(client)
			mgrCtx, mgrCancel := context.WithCancel(signalCtx)
			defer mgrCancel()
			go runManager(mgrCtx)
			if !StartInformersAndWaitForCacheSync(signalCtx, logger, informers) { // want `leader callback starts StartInformersAndWaitForCacheSync with signalCtx, a context captured from Broken, not the leader context ctx`
				os.Exit(1)
			}
			var wg sync.WaitGroup
			for _, c := range controllers {
				c.Run(signalCtx, logger.WithName("controllers"), &wg) // want `leader callback starts c.Run with signalCtx`
			}
			wg.Wait()
		},
		nil,
	)
	if err != nil {
		os.Exit(1)
	}
	le.Run(signalCtx)
}

// Fixed: the controllers run on the leader context (kyverno v1.17.0).
func Fixed(logger logr.Logger, client any) {
	signalCtx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	le, err := election.New(logger, "background-controller", "kyverno", client, os.Getenv("POD_NAME"), 2*time.Second,
		func(ctx context.Context) {
			informers := newInformers(client)
			controllers := newControllers(client)
			// the manager's context is cancelled when this callback returns,
			// which it does once the controllers stop with the leader context
			mgrCtx, mgrCancel := context.WithCancel(signalCtx)
			defer mgrCancel()
			go runManager(mgrCtx)
			if !StartInformersAndWaitForCacheSync(ctx, logger, informers) {
				os.Exit(1)
			}
			var wg sync.WaitGroup
			for _, c := range controllers {
				c.Run(ctx, logger.WithName("controllers"), &wg)
			}
			wg.Wait()
		},
		nil,
	)
	if err != nil {
		os.Exit(1)
	}
	le.Run(signalCtx)
}

// ExitsOnLoss: the wrapper panics when the lease is lost, so the work on the
// process context dies with the process.
func ExitsOnLoss(ctx context.Context, lock any, c Controller) {
	election.RunOrExit(ctx, nil, func(context.Context) {
		c.Run(ctx, logr.Discard(), &sync.WaitGroup{})
	})
}

// StopWorkCancels: the caller's stop callback cancels the work.
func StopWorkCancels(logger logr.Logger, client any, c Controller) {
	workCtx, cancel := context.WithCancel(context.Background())
	le, _ := election.New(logger, "reports", "kyverno", client, "pod-0", 2*time.Second,
		func(context.Context) { c.Run(workCtx, logger, &sync.WaitGroup{}) },
		cancel,
	)
	le.Run(context.Background())
}

// DetachedCaller: the wrapper does not forward the leader context; nothing
// to judge here.
func DetachedCaller(ctx context.Context, c Controller) {
	election.Detached(ctx, nil, func(context.Context) {
		c.Run(ctx, logr.Discard(), &sync.WaitGroup{})
	})
}

func runManager(ctx context.Context) { <-ctx.Done() }

// Through two wrapper layers.
func TwoLayers(ctx context.Context, c Controller) error {
	return platform.RunLeader(ctx, logr.Discard(), "reports", func(context.Context) {
		c.Run(ctx, logr.Discard(), &sync.WaitGroup{}) // want `leader callback starts c.Run with ctx, a context captured from TwoLayers`
	})
}
