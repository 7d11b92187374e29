// Package renewloop holds leases and claims of its own making, renewed by a
// goroutine on a ticker or a sleep loop while the work runs beside it.
package renewloop

import (
	"context"
	"database/sql"
	"log"
	"os"
	"sync/atomic"
	"time"
)

// renewLease moves the expiry of the lease row this holder owns. It also
// never reads the affected-row count (renewheld.go's shape).
func renewLease(ctx context.Context, db *sql.DB, name, holder string, ttl time.Duration) error {
	_, err := db.ExecContext(ctx, `UPDATE app_leases SET expires_at = now() + $1 * interval '1 second' WHERE name = $2 AND holder = $3`, // want `\(sql.DB\).ExecContext renews a row of table app_leases only while its holder column names this holder, and its affected-row count \(RowsAffected\) is never read`
		int64(ttl/time.Second), name, holder)
	return err
}

// touchSetting moves an expiry too, but of a row every replica shares.
func touchSetting(ctx context.Context, db *sql.DB, name string, ttl time.Duration) error {
	_, err := db.ExecContext(ctx, `UPDATE app_settings SET expires_at = now() + $1 * interval '1 second' WHERE name = $2`,
		int64(ttl/time.Second), name)
	return err
}

type leaseHolder struct {
	db       *sql.DB
	name     string
	holderID string
	ttl      time.Duration
	cancel   context.CancelFunc
	lost     atomic.Bool
	expired  bool
	until    time.Time
	lostCh   chan struct{}
}

func newLeaseHolder(db *sql.DB, name string) *leaseHolder {
	host, _ := os.Hostname()
	return &leaseHolder{db: db, name: name, holderID: host, ttl: 30 * time.Second, lostCh: make(chan struct{})}
}

// Only logged: the migration goes on after the lease passed to another
// replica.
func (l *leaseHolder) heartbeatLogged(ctx context.Context) {
	go func() {
		t := time.NewTicker(l.ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := renewLease(ctx, l.db, l.name, l.holderID, l.ttl); err != nil { // want `renewLease renews a row of table app_leases keyed by the instance's identity \(os.Hostname\(\)\).*its failure is only logged`
					log.Printf("lease %s: renewal failed: %v", l.name, err)
					continue
				}
			}
		}
	}()
}

// The same renewal whose failure cancels the work's context: silent.
func (l *leaseHolder) heartbeatCancels(ctx context.Context) {
	go func() {
		t := time.NewTicker(l.ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := renewLease(ctx, l.db, l.name, l.holderID, l.ttl); err != nil {
					log.Printf("lease %s: renewal failed: %v", l.name, err)
					l.cancel()
				}
			}
		}
	}()
}

// Closes a channel the work selects on: silent.
func (l *leaseHolder) heartbeatCloses(ctx context.Context) {
	go func() {
		for {
			time.Sleep(l.ttl / 3)
			if err := renewLease(ctx, l.db, l.name, l.holderID, l.ttl); err != nil {
				close(l.lostCh)
				return
			}
		}
	}()
}

// Sets a flag the work reads: silent.
func (l *leaseHolder) heartbeatFlags(ctx context.Context) {
	go func() {
		for {
			time.Sleep(l.ttl / 3)
			if err := renewLease(ctx, l.db, l.name, l.holderID, l.ttl); err != nil {
				log.Printf("lease lost: %v", err)
				l.lost.Store(true)
			}
		}
	}()
}

// The twin of heartbeatFlags without the flag, in a sleep loop.
func (l *leaseHolder) heartbeatSleepLogged(ctx context.Context) {
	go func() {
		for {
			time.Sleep(l.ttl / 3)
			if err := renewLease(ctx, l.db, l.name, l.holderID, l.ttl); err != nil { // want `renewLease renews a row of table app_leases.*its failure is only logged`
				log.Printf("lease lost: %v", err)
			}
		}
	}()
}

// Returns, and the deferred cancel ends the work's context: silent.
func (l *leaseHolder) heartbeatReturnCancels(ctx context.Context, work func(context.Context)) {
	workCtx, cancel := context.WithCancel(ctx)
	go func() {
		defer cancel()
		for {
			time.Sleep(l.ttl / 3)
			if err := renewLease(ctx, l.db, l.name, l.holderID, l.ttl); err != nil {
				log.Printf("lease lost: %v", err)
				return
			}
		}
	}()
	work(workCtx)
}

// Returns without cancelling anything: the renewer stops, the work does not.
func (l *leaseHolder) heartbeatReturns(ctx context.Context, work func(context.Context)) {
	go func() {
		for {
			time.Sleep(l.ttl / 3)
			if err := renewLease(ctx, l.db, l.name, l.holderID, l.ttl); err != nil { // want `renewLease renews a row of table app_leases.*after its failure the renewer can return without stopping the work`
				log.Printf("lease lost: %v", err)
				return
			}
		}
	}()
	work(ctx)
}

// The outcome is handed to code the analysis does not read: silent.
func (l *leaseHolder) heartbeatHandsOn(ctx context.Context, onErr func(error)) {
	go func() {
		for {
			time.Sleep(l.ttl / 3)
			if err := renewLease(ctx, l.db, l.name, l.holderID, l.ttl); err != nil {
				onErr(err)
			}
		}
	}()
}

// The failure is only logged, but success records the new deadline, which
// the work may check before each step: the loss reaches it; silent
// (heartbeatSleepLogged is the twin without the record).
func (l *leaseHolder) heartbeatRecordsDeadline(ctx context.Context) {
	go func() {
		for {
			time.Sleep(l.ttl / 3)
			if err := renewLease(ctx, l.db, l.name, l.holderID, l.ttl); err != nil {
				log.Printf("lease lost: %v", err)
				continue
			}
			l.until = time.Now().Add(l.ttl)
		}
	}()
}

// Started by two go statements: reported once.
func (l *leaseHolder) keepAlive(ctx context.Context) {
	for {
		time.Sleep(l.ttl / 3)
		if err := renewLease(ctx, l.db, l.name, l.holderID, l.ttl); err != nil { // want `renewLease renews a row of table app_leases.*its failure is only logged`
			log.Printf("keep alive: %v", err)
		}
	}
}

func (l *leaseHolder) startTwice(ctx context.Context) {
	go l.keepAlive(ctx)
	go l.keepAlive(ctx)
}

// Discarded: reported too.
func (l *leaseHolder) heartbeatDiscards(ctx context.Context) {
	go func() {
		for range time.Tick(l.ttl / 3) {
			_ = renewLease(ctx, l.db, l.name, l.holderID, l.ttl) // want `renewLease renews a row of table app_leases.*its result is discarded`
		}
	}()
}

// A shared row, not one this replica holds: a plain periodic update, silent.
func (l *leaseHolder) touchShared(ctx context.Context) {
	go func() {
		for {
			time.Sleep(time.Minute)
			if err := touchSetting(ctx, l.db, "banner", time.Hour); err != nil {
				log.Printf("touch: %v", err)
			}
		}
	}()
}

// Not paced: a renewal per request from elsewhere, whose timing is out of
// sight; silent (heartbeatLogged is the paced twin).
func (l *leaseHolder) renewOnRequest(ctx context.Context, kicks <-chan struct{}) {
	go func() {
		for range kicks {
			if err := renewLease(ctx, l.db, l.name, l.holderID, l.ttl); err != nil {
				log.Printf("renew: %v", err)
			}
		}
	}()
}

// Sets a field the work reads (guarded by nothing but read by it): silent.
func (l *leaseHolder) heartbeatMarks(ctx context.Context) {
	go func() {
		for {
			time.Sleep(l.ttl / 3)
			if err := renewLease(ctx, l.db, l.name, l.holderID, l.ttl); err != nil {
				log.Printf("lease lost: %v", err)
				l.expired = true
			}
		}
	}()
}
