// Package usercli registers its commands with a CLI library the project
// declares in its own .gatesift.yaml: "loadgen" generates load, "serve"
// is the service.
package usercli

import (
	"database/sql"
	"time"

	"github.com/urfave/cli/v2"
)

type tool struct{ db *sql.DB }

func (t *tool) App() *cli.App {
	return &cli.App{Name: "orders", Commands: []*cli.Command{
		{Name: "loadgen", Usage: "Generate write load.", Action: t.loadgen},
		{Name: "serve", Usage: "Run the service.", Action: t.serve},
	}}
}

// Negative: the loadgen command's action, known only from the project's
// knowledge entries.
func (t *tool) loadgen(*cli.Context) error {
	for range time.Tick(time.Second) {
		t.db.Exec(`INSERT INTO orders (item) VALUES ('load')`)
	}
	return nil
}

// Positive twin: the same loop under the serve command.
func (t *tool) serve(*cli.Context) error {
	for range time.Tick(time.Second) { // want `time.Tick runs loop body on every replica every 1s: it inserts into table orders; guarded by nothing`
		t.db.Exec(`INSERT INTO orders (item) VALUES ('load')`)
	}
	return nil
}
