// Package cobracmd registers cobra commands: "bench" generates load, "sync"
// is the service's own loop.
package cobracmd

import (
	"database/sql"
	"time"

	"github.com/spf13/cobra"
)

func Commands(db *sql.DB) *cobra.Command {
	root := &cobra.Command{Use: "orders"}
	root.AddCommand(&cobra.Command{
		Use:  "bench [flags]",
		RunE: func(*cobra.Command, []string) error { return runBench(db) },
	})
	root.AddCommand(&cobra.Command{Use: "sync", Run: func(*cobra.Command, []string) { runSync(db) }})
	return root
}

// Negative: reached only from the bench command's action.
func runBench(db *sql.DB) error {
	for range time.Tick(time.Second) {
		db.Exec(`INSERT INTO orders (item) VALUES ('bench')`)
	}
	return nil
}

// Positive twin: the same loop under the sync command.
func runSync(db *sql.DB) {
	for range time.Tick(time.Second) { // want `time.Tick runs loop body on every replica every 1s: it inserts into table orders; guarded by nothing`
		db.Exec(`INSERT INTO orders (item) VALUES ('bench')`)
	}
}

type cmds struct{ db *sql.DB }

func (c *cmds) register(root *cobra.Command) {
	root.AddCommand(&cobra.Command{Use: "loadtest", RunE: c.loadTest})
	root.AddCommand(&cobra.Command{Use: "stress", RunE: c.stressRun})
}

// Negative: the loadtest command's action itself.
func (c *cmds) loadTest(*cobra.Command, []string) error {
	for range time.Tick(time.Second) {
		c.db.Exec(`INSERT INTO orders (item) VALUES ('bench')`)
	}
	return nil
}

// Positive twin of loadTest: the stress command's action, also called by
// Nightly, which a service may schedule.
func (c *cmds) stressRun(*cobra.Command, []string) error {
	for range time.Tick(time.Second) { // want `time.Tick runs loop body on every replica every 1s: it inserts into table orders; guarded by nothing`
		c.db.Exec(`INSERT INTO orders (item) VALUES ('bench')`)
	}
	return nil
}

func Nightly(db *sql.DB) {
	c := &cmds{db: db}
	c.stressRun(nil, nil)
}

func Root(db *sql.DB) *cobra.Command {
	root := Commands(db)
	(&cmds{db: db}).register(root)
	return root
}
