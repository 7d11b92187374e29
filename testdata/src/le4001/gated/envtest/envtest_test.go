package envtest

import (
	"context"
	"testing"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

func TestManager(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mgr, _ := manager.New(&rest.Config{}, manager.Options{})
	go func() {
		_ = mgr.Start(ctx)
	}()
}
