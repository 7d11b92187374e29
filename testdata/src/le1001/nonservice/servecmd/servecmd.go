// Package servecmd is the positive twin of loadcmd: the same shard ticker
// reached only from the action of a command that runs the service.
package servecmd

import (
	"context"
	"database/sql"
	"time"

	"github.com/alecthomas/kingpin/v2"
)

type ServeCmd struct {
	db       *sql.DB
	interval time.Duration
	shards   int
}

func (c *ServeCmd) Register(app *kingpin.Application) {
	app.Command("serve", "Run the order service.").Action(c.run)
}

func (c *ServeCmd) run(*kingpin.ParseContext) error {
	for i := 0; i < c.shards; i++ {
		go c.writeShard(i)
	}
	return nil
}

func (c *ServeCmd) writeShard(i int) {
	t := time.NewTicker(c.interval) // want `time.NewTicker runs loop body on every replica: it inserts into table orders; guarded by nothing`
	for range t.C {
		c.db.ExecContext(context.Background(), `INSERT INTO orders (item, shard) VALUES ('load', $1)`, i)
	}
}

// Positive twin of loadcmd's stress literal: the same loop in the action
// literal of a command that is not a load tool.
func (c *ServeCmd) RegisterWatch(app *kingpin.Application) {
	app.Command("watch", "Watch orders.").Action(func(*kingpin.ParseContext) error {
		for range time.Tick(time.Second) { // want `time.Tick runs loop body on every replica every 1s: it inserts into table orders; guarded by nothing`
			c.db.Exec(`INSERT INTO orders (item) VALUES ('stress')`)
		}
		return nil
	})
}
