// Package controllerruntime is a stub of sigs.k8s.io/controller-runtime
// (v0.22) for analyzer tests: real names and signatures, trivial bodies.
package controllerruntime

import (
	"context"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// Options are the arguments for creating a new Manager.
type Options = manager.Options

// Manager initializes shared dependencies and runs Runnables.
type Manager = manager.Manager

// NewManager returns a new Manager for creating Controllers.
func NewManager(config *rest.Config, options Options) (Manager, error) {
	return manager.New(config, options)
}

// SetupSignalHandler returns a context cancelled on SIGTERM or SIGINT.
func SetupSignalHandler() context.Context { return context.Background() }

// GetConfigOrDie returns a rest.Config.
func GetConfigOrDie() *rest.Config { return &rest.Config{} }
