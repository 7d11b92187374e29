// Package pgjobs: the same ticker on the cache's PostgreSQL handle.
package pgjobs

import (
	"time"

	"le1001/sqlitecross/backend"
)

func Audit() {
	for range time.Tick(time.Second) { // want `inserts into table audit`
		_, _ = backend.ExecShared("INSERT INTO audit (at) VALUES (1)")
	}
}
