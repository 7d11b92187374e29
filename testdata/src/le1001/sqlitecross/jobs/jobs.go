// Package jobs: a ticker that inserts into the process's own SQLite file,
// through two packages and a map of handles: local state, silent.
package jobs

import (
	"time"

	"le1001/sqlitecross/backend"
)

func Audit() {
	for range time.Tick(time.Second) {
		_, _ = backend.ExecLocal("INSERT INTO audit (at) VALUES (1)")
	}
}
