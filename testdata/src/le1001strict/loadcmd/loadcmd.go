// Package loadcmd: under the strict profile a load generator's work is
// reported like any other.
package loadcmd

import (
	"database/sql"
	"time"

	"github.com/alecthomas/kingpin/v2"
)

type LoadCmd struct{ db *sql.DB }

func (c *LoadCmd) Register(app *kingpin.Application) {
	app.Command("loadgen", "Generate write load.").Action(c.run)
}

func (c *LoadCmd) run(*kingpin.ParseContext) error {
	for range time.Tick(time.Second) { // want `time.Tick runs loop body on every replica every 1s: it inserts into table orders; guarded by nothing`
		c.db.Exec(`INSERT INTO orders (item) VALUES ('load')`)
	}
	return nil
}
