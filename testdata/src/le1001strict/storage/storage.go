// Package storage: shared storage writes that converge, under the strict
// profile.
package storage

import (
	"context"
	"time"

	"github.com/caddyserver/certmagic"
)

// A certmagic Storage's Store of a configured value and Delete of a fixed
// key: idempotent, silent by default (le1001/mintedwrite runTidy), shown
// here as idempotent work, not as work the analysis cannot read
// (TestStrictShowsStorageWritesIdempotent checks the related entries).
func tidyStorage(ctx context.Context, s certmagic.Storage, name string) {
	t := time.NewTicker(time.Hour) // want `time.NewTicker runs loop body on every replica every 1h0m0s: it updates keys/name, deletes from keys/retired.pem; guarded by nothing`
	for range t.C {
		_ = s.Store(ctx, "keys/name", []byte(name))
		_ = s.Delete(ctx, "keys/retired.pem")
	}
}
