package le1001strict

import (
	"context"
	"database/sql"
	"time"

	"gorm.io/gorm"
)

// A statement handed in by the caller: unknown, silent by default, shown
// here.
func runStatement(ctx context.Context, db *sql.DB, q string) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it writes; guarded by nothing`
		db.ExecContext(ctx, q)
	}
}

type session struct{ State string }

// An ORM update to a constant and a delete by predicate: idempotent, shown
// here.
func closeStale(db *gorm.DB) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it updates, deletes from; guarded by nothing`
		db.Model(&session{}).Where("seen < ?", time.Now().Add(-time.Hour)).Update("state", "closed")
		db.Where("state = ?", "closed").Delete(&session{})
	}
}
