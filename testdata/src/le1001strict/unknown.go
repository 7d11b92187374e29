package le1001strict

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
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

// A POST whose decoded answer is used: a query, unknown, silent by default
// (le1001 httpquery.go), shown here.
func checkVersion(ctx context.Context, url string, latest *string) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it sends HTTP POST; guarded by nothing`
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			continue
		}
		json.NewDecoder(resp.Body).Decode(latest)
		resp.Body.Close()
	}
}
