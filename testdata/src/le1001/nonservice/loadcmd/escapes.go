package loadcmd

import (
	"context"
	"time"

	"github.com/alecthomas/kingpin/v2"
)

type spinner interface{ spin() }

type hooked struct {
	LoadCmd
	hooks []func()
}

func (h *hooked) Register(app *kingpin.Application) {
	app.Command("bench", "Benchmark the orders table.").Action(h.run)
}

func (h *hooked) run(*kingpin.ParseContext) error {
	go h.spin()
	h.hooks = append(h.hooks, h.hookShard)
	return nil
}

// Positive twin of writeShard: reached from the bench action, but also
// from an interface call, which may come from anywhere.
func (h *hooked) spin() {
	for range time.Tick(time.Second) { // want `time.Tick runs loop body on every replica every 1s: it inserts into table orders \(via loadcmd.\(\*LoadCmd\).insertBatch\); guarded by nothing`
		h.insertBatch(context.Background(), 3)
	}
}

func spinAll(list []spinner) {
	for _, s := range list {
		s.spin()
	}
}

// Positive twin of writeShard: handed on as a value (a hook someone else
// calls), not called from the bench action.
func (h *hooked) hookShard() {
	for range time.Tick(time.Second) { // want `time.Tick runs loop body on every replica every 1s: it inserts into table orders \(via loadcmd.\(\*LoadCmd\).insertBatch\); guarded by nothing`
		h.insertBatch(context.Background(), 4)
	}
}
