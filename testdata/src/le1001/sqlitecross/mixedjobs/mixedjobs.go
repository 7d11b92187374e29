// Package mixedjobs: the same ticker on a handle the cache may have been
// handed by anyone.
package mixedjobs

import (
	"time"

	"le1001/sqlitecross/backend"
)

func Audit() {
	for range time.Tick(time.Second) { // want `inserts into table audit`
		_, _ = backend.ExecMixed("INSERT INTO audit (at) VALUES (1)")
	}
}
