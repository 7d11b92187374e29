// Package k8sclient: controllers that write cluster objects through a
// generated clientset's typed interfaces, on every replica. The writes
// set objects to values (idempotent): silent by default, shown under the
// strict profile.
package k8sclient

import (
	"context"
	"time"

	"le1001strict/k8sclient/typed"
)

type controller struct {
	widgets typed.WidgetInterface
	gauges  typed.GaugeInterface
	syncFn  func(ctx context.Context, name string) error
}

func newController() *controller {
	c := &controller{widgets: typed.NewWidgets(), gauges: typed.NewGauges()}
	c.syncFn = c.sync
	return c
}

func (c *controller) sync(ctx context.Context, name string) error {
	w, err := c.widgets.Get(ctx, name)
	if err != nil {
		return err
	}
	w.Status = "Available"
	_, err = c.widgets.UpdateStatus(ctx, w)
	return err
}

// Positive (strict): the typed interface's only implementation is the
// generic client's UpdateStatus, reached through a func field.
func (c *controller) resync(ctx context.Context) {
	t := time.NewTicker(30 * time.Second) // want `time.NewTicker runs loop body on every replica every 30s: it updates \(via k8sclient.\(\*controller\).sync\); guarded by nothing`
	for range t.C {
		_ = c.syncFn(ctx, "a")
	}
}

// Positive (strict): a delete of a named object, every replica.
func (c *controller) prune(ctx context.Context) {
	t := time.NewTicker(time.Hour) // want `time.NewTicker runs loop body on every replica every 1h0m0s: it deletes from; guarded by nothing`
	for range t.C {
		_ = c.widgets.Delete(ctx, "stale")
	}
}

// Negative: reading only.
func (c *controller) watchLevel(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	for range t.C {
		_, _ = c.widgets.Get(ctx, "a")
	}
}

// Negative: GaugeInterface has an in-memory implementation too, so the
// call is not known to reach the API (unknown code gives no report).
// Its twin is resync: the same call through an interface whose every
// implementation is the generic client.
func (c *controller) publishGauge(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	for range t.C {
		_, _ = c.gauges.UpdateStatus(ctx, &typed.Gauge{Level: 1})
	}
}
