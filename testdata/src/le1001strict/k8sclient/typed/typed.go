// Package typed is shaped like a generated clientset's typed package: each
// interface is implemented beside it by a struct that embeds the generic
// client. Gauges also have an in-memory implementation (a single-process
// mode), so a call through GaugeInterface is not known to reach the API.
package typed

import (
	"context"

	"k8s.io/client-go/gentype"
)

// Widget is a custom resource.
type Widget struct {
	Name   string
	Status string
}

// WidgetInterface reads and writes Widgets.
type WidgetInterface interface {
	Get(ctx context.Context, name string) (*Widget, error)
	UpdateStatus(ctx context.Context, w *Widget) (*Widget, error)
	Delete(ctx context.Context, name string) error
}

type widgets struct {
	*gentype.Client[*Widget]
}

// NewWidgets returns the API client of Widgets.
func NewWidgets() WidgetInterface {
	return &widgets{gentype.NewClient[*Widget]("widgets")}
}

// Gauge is another resource.
type Gauge struct{ Level int }

// GaugeInterface writes Gauges.
type GaugeInterface interface {
	UpdateStatus(ctx context.Context, g *Gauge) (*Gauge, error)
}

type gauges struct {
	*gentype.Client[*Gauge]
}

// NewGauges returns the API client of Gauges.
func NewGauges() GaugeInterface { return &gauges{gentype.NewClient[*Gauge]("gauges")} }

type localGauges struct{ last *Gauge }

func (l *localGauges) UpdateStatus(ctx context.Context, g *Gauge) (*Gauge, error) {
	l.last = g
	return g, nil
}

// NewLocalGauges keeps Gauges in memory.
func NewLocalGauges() GaugeInterface { return &localGauges{} }
