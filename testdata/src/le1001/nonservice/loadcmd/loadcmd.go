// Package loadcmd registers a "loadgen" command of an operator's tool: the
// periodic inserts of its shards are load generated against a service, not
// work of the service's replicas.
package loadcmd

import (
	"context"
	"database/sql"
	"time"

	"github.com/alecthomas/kingpin/v2"
)

type LoadCmd struct {
	db       *sql.DB
	interval time.Duration
	shards   int
}

func (c *LoadCmd) Register(app *kingpin.Application) {
	app.Command("loadgen", "Generate write load.").PreAction(c.setup).Action(c.run)
	cmd := app.Command("load-test", "Generate burst load.")
	cmd.Action(c.burst)
	app.Command("replay", "Replay orders.").Action(func(*kingpin.ParseContext) error {
		go c.replay()
		return nil
	})
	app.Command("stress", "Stress the orders table.").Action(func(*kingpin.ParseContext) error {
		for range time.Tick(time.Second) { // negative: inside a stress command's action literal
			c.db.Exec(`INSERT INTO orders (item) VALUES ('stress')`)
		}
		return nil
	})
}

func (c *LoadCmd) setup(*kingpin.ParseContext) error { return nil }

func (c *LoadCmd) run(*kingpin.ParseContext) error {
	for i := 0; i < c.shards; i++ {
		go c.writeShard(i)
	}
	return nil
}

// Negative: reached only through run, the loadgen command's action.
func (c *LoadCmd) writeShard(i int) {
	t := time.NewTicker(c.interval)
	for range t.C {
		c.insertBatch(context.Background(), i)
	}
}

func (c *LoadCmd) insertBatch(ctx context.Context, shard int) {
	c.db.ExecContext(ctx, `INSERT INTO orders (item, shard) VALUES ('load', $1)`, shard)
}

// Negative: the action of "load-test", registered through a variable.
func (c *LoadCmd) burst(*kingpin.ParseContext) error {
	for range time.Tick(time.Second) {
		c.insertBatch(context.Background(), -1)
	}
	return nil
}

// Positive twin of writeShard: the same ticker, started by a "replay"
// command, which is not a load tool.
func (c *LoadCmd) replay() {
	t := time.NewTicker(c.interval) // want `time.NewTicker runs loop body on every replica: it inserts into table orders \(via loadcmd.\(\*LoadCmd\).insertBatch\); guarded by nothing`
	for range t.C {
		c.insertBatch(context.Background(), 0)
	}
}

// Positive twin of writeShard: also started from Serve, an exported entry
// any service may call, so not only from the loadgen action.
func (c *LoadCmd) mirrorShard() {
	t := time.NewTicker(c.interval) // want `time.NewTicker runs loop body on every replica: it inserts into table orders \(via loadcmd.\(\*LoadCmd\).insertBatch\); guarded by nothing`
	for range t.C {
		c.insertBatch(context.Background(), 1)
	}
}

func (c *LoadCmd) runMirror(*kingpin.ParseContext) error {
	go c.mirrorShard()
	return nil
}

func (c *LoadCmd) RegisterMirror(app *kingpin.Application) {
	app.Command("bench-mirror", "Mirror load.").Action(c.runMirror)
}

func (c *LoadCmd) Serve() { go c.mirrorShard() }

// Positive twin: exported, so callable from a service in another package
// whatever this package's commands are.
func (c *LoadCmd) WriteForever() {
	for range time.Tick(time.Second) { // want `time.Tick runs loop body on every replica every 1s: it inserts into table orders \(via loadcmd.\(\*LoadCmd\).insertBatch\); guarded by nothing`
		c.insertBatch(context.Background(), 2)
	}
}

func (c *LoadCmd) runForever(*kingpin.ParseContext) error {
	c.WriteForever()
	return nil
}

func (c *LoadCmd) RegisterForever(app *kingpin.Application) {
	app.Command("loadgen-forever", "Write forever.").Action(c.runForever)
}
