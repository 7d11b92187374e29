// Package azure holds Azure Blob leases around work: fixed 15..60 s leases
// that are, or are not, renewed while the work runs.
package azure

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/gatesift/gatesift-vet/elector"
)

const leaseSeconds = 60

// leaseTTL is the lease length as the service's configuration spells it.
const leaseTTL = 20 * time.Second

type Invoice struct {
	ID      int64
	Webhook string
}

// reconcileInvoices takes a 30 s lease and walks every open invoice under
// it: a slow database or webhook makes the walk outlast the lease.
func reconcileInvoices(ctx context.Context, lc *lease.BlobClient, db *sql.DB, open []Invoice) error {
	if _, err := lc.AcquireLease(ctx, 30, nil); err != nil { // want `AcquireLease takes the blob lease lc for a fixed 30s and holds it around work of unbounded duration \(a loop over open calling http.Post, line \d+\) without renewing it`
		return err
	}
	defer lc.ReleaseLease(ctx, nil)
	for _, inv := range open {
		if _, err := http.Post(inv.Webhook, "application/json", nil); err != nil {
			slog.Error("webhook", "invoice", inv.ID, "err", err)
			continue
		}
		db.ExecContext(ctx, `UPDATE invoices SET notified = true WHERE id = $1`, inv.ID)
	}
	return nil
}

type compactor struct {
	lease *lease.ContainerClient
	db    *sql.DB
}

// compact holds the container lease (a named constant, 60 s) while it
// loops until the table is compacted.
func (c *compactor) compact(ctx context.Context) error {
	_, err := c.lease.AcquireLease(ctx, leaseSeconds, nil) // want `AcquireLease takes the container lease c.lease for a fixed 1m0s and holds it around work of unbounded duration \(a loop while more calling`
	if err != nil {
		return err
	}
	more := true
	for more {
		res, err := c.db.ExecContext(ctx, `DELETE FROM events WHERE id IN (SELECT id FROM events WHERE archived LIMIT 1000)`)
		if err != nil {
			break
		}
		n, _ := res.RowsAffected()
		more = n > 0
	}
	_, err = c.lease.ReleaseLease(ctx, nil)
	return err
}

// exportAll hands the job to a callback whose duration the caller decides.
func exportAll(ctx context.Context, lc *lease.BlobClient, export func(context.Context) error) error {
	if _, err := lc.AcquireLease(ctx, 15, nil); err != nil { // want `AcquireLease takes the blob lease lc for a fixed 15s and holds it around work of unbounded duration \(the callback export`
		return err
	}
	defer func() { lc.ReleaseLease(context.Background(), nil) }()
	return export(ctx)
}

// renewOnce renews once before a long loop: the lease is still 30 s long
// when the loop starts.
func renewOnce(ctx context.Context, lc *lease.BlobClient, jobs <-chan Invoice, db *sql.DB) error {
	if _, err := lc.AcquireLease(ctx, 30, nil); err != nil { // want `AcquireLease takes the blob lease lc for a fixed 30s and holds it around work of unbounded duration \(a loop receiving from jobs`
		return err
	}
	if _, err := lc.RenewLease(ctx, nil); err != nil {
		return err
	}
	for j := range jobs {
		db.ExecContext(ctx, `UPDATE invoices SET sent = true WHERE id = $1`, j.ID)
	}
	return nil
}

type mailer struct {
	lc *lease.BlobClient
	db *sql.DB
}

// Run holds the lease (converted from a time.Duration) and hands the work
// to a method that pages through the outbox until it is empty.
func (m *mailer) Run(ctx context.Context) error {
	if _, err := m.lc.AcquireLease(ctx, int32(leaseTTL.Seconds()), nil); err != nil { // want `AcquireLease takes the blob lease m.lc for a fixed 20s and holds it around work of unbounded duration \(a call of m.drain, which runs an endless loop calling`
		return err
	}
	defer m.lc.ReleaseLease(context.Background(), nil)
	return m.drain(ctx)
}

func (m *mailer) drain(ctx context.Context) error {
	for {
		res, err := m.db.ExecContext(ctx, `UPDATE outbox SET sent = true WHERE id IN (SELECT id FROM outbox WHERE NOT sent LIMIT 50)`)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
	}
}

// waitAndRun retries the acquire until it wins, then walks the queue.
func waitAndRun(ctx context.Context, lc *lease.BlobClient, jobs <-chan Invoice, db *sql.DB, backoff time.Duration) error {
	for {
		if _, err := lc.AcquireLease(ctx, 30, nil); err == nil { // want `AcquireLease takes the blob lease lc for a fixed 30s and holds it around work of unbounded duration \(a loop receiving from jobs`
			break
		}
		time.Sleep(backoff)
	}
	defer lc.ReleaseLease(context.Background(), nil)
	for j := range jobs {
		db.ExecContext(ctx, `UPDATE invoices SET sent = true WHERE id = $1`, j.ID)
	}
	return nil
}

// --- negatives ---

// waitRenewRun retries the acquire, then renews from a goroutine.
func waitRenewRun(ctx context.Context, lc *lease.BlobClient, jobs <-chan Invoice, db *sql.DB, backoff time.Duration) error {
	for {
		_, err := lc.AcquireLease(ctx, 30, nil)
		if err == nil {
			break
		}
		time.Sleep(backoff)
	}
	defer lc.ReleaseLease(context.Background(), nil)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for range time.Tick(10 * time.Second) {
			if _, err := lc.RenewLease(ctx, nil); err != nil {
				cancel()
				return
			}
		}
	}()
	for j := range jobs {
		db.ExecContext(ctx, `UPDATE invoices SET sent = true WHERE id = $1`, j.ID)
	}
	return nil
}

// RunBounded gives the same drain a deadline below the lease.
func (m *mailer) RunBounded(ctx context.Context) error {
	if _, err := m.lc.AcquireLease(ctx, int32(leaseTTL.Seconds()), nil); err != nil {
		return err
	}
	defer m.lc.ReleaseLease(context.Background(), nil)
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	return m.drain(dctx)
}

// RunOne calls a helper that does one write.
func (m *mailer) RunOne(ctx context.Context) error {
	if _, err := m.lc.AcquireLease(ctx, 20, nil); err != nil {
		return err
	}
	defer m.lc.ReleaseLease(context.Background(), nil)
	return m.markRun(ctx)
}

func (m *mailer) markRun(ctx context.Context) error {
	_, err := m.db.ExecContext(ctx, `UPDATE jobs SET last_run = now() WHERE name = 'mailer'`)
	return err
}

// renewed is the pattern's own example: a goroutine renews every 10 s and
// cancels the work when a renewal fails; the lease is released on exit.
func renewed(ctx context.Context, lc *lease.BlobClient, db *sql.DB, open []Invoice) error {
	if _, err := lc.AcquireLease(ctx, 30, nil); err != nil {
		return err
	}
	defer lc.ReleaseLease(context.Background(), nil)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		t := time.NewTicker(10 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := lc.RenewLease(ctx, nil); err != nil {
					cancel()
					return
				}
			}
		}
	}()
	for _, inv := range open {
		if _, err := db.ExecContext(ctx, `UPDATE invoices SET notified = true WHERE id = $1`, inv.ID); err != nil {
			return err
		}
	}
	return nil
}

// renewInLoop renews inside the work loop itself.
func renewInLoop(ctx context.Context, lc *lease.BlobClient, jobs <-chan Invoice, db *sql.DB) error {
	if _, err := lc.AcquireLease(ctx, 30, nil); err != nil {
		return err
	}
	defer lc.ReleaseLease(ctx, nil)
	for j := range jobs {
		if _, err := lc.RenewLease(ctx, nil); err != nil {
			return err
		}
		db.ExecContext(ctx, `UPDATE invoices SET sent = true WHERE id = $1`, j.ID)
	}
	return nil
}

type keeper struct{ lc *lease.BlobClient }

// keepAlive renews the field's lease; a method started by the owner.
func (k *keeper) keepAlive(ctx context.Context) {
	for range time.Tick(15 * time.Second) {
		if _, err := k.lc.RenewLease(ctx, nil); err != nil {
			return
		}
	}
}

func (k *keeper) run(ctx context.Context, jobs <-chan Invoice, db *sql.DB) error {
	if _, err := k.lc.AcquireLease(ctx, 45, nil); err != nil {
		return err
	}
	for j := range jobs {
		db.ExecContext(ctx, `UPDATE invoices SET sent = true WHERE id = $1`, j.ID)
	}
	return nil
}

// writeMarker does one write under a context deadline shorter than the lease.
func writeMarker(ctx context.Context, lc *lease.BlobClient, db *sql.DB) error {
	if _, err := lc.AcquireLease(ctx, 30, nil); err != nil {
		return err
	}
	defer lc.ReleaseLease(context.Background(), nil)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := db.ExecContext(ctx, `UPDATE jobs SET last_run = now() WHERE name = 'marker'`)
	return err
}

// boundedBatch loops over a batch, but under a 20 s deadline: the calls
// stop before the 30 s lease can expire.
func boundedBatch(ctx context.Context, lc *lease.BlobClient, db *sql.DB, batch []Invoice) error {
	if _, err := lc.AcquireLease(ctx, 30, nil); err != nil {
		return err
	}
	defer lc.ReleaseLease(context.Background(), nil)
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for _, inv := range batch {
		if _, err := db.ExecContext(wctx, `UPDATE invoices SET notified = true WHERE id = $1`, inv.ID); err != nil {
			return err
		}
	}
	return nil
}

// handedOver: the lease only guards start-up; the work itself runs under
// the elector, which renews its own lease and cancels the work on loss.
func handedOver(ctx context.Context, lc *lease.BlobClient, cand *elector.Candidate, work func(context.Context) error) error {
	if _, err := lc.AcquireLease(ctx, 15, nil); err != nil {
		return err
	}
	lc.ReleaseLease(ctx, nil)
	return cand.Run(ctx, func(ctx context.Context, l elector.Lease) error { return work(ctx) })
}

// unknownDuration: the duration comes from configuration.
func unknownDuration(ctx context.Context, lc *lease.BlobClient, seconds int32, jobs <-chan Invoice, db *sql.DB) error {
	if _, err := lc.AcquireLease(ctx, seconds, nil); err != nil {
		return err
	}
	for j := range jobs {
		db.ExecContext(ctx, `UPDATE invoices SET sent = true WHERE id = $1`, j.ID)
	}
	return nil
}

// passedOn: the lease client goes to code this analysis cannot see, which
// may renew it.
func passedOn(ctx context.Context, lc *lease.BlobClient, jobs <-chan Invoice, db *sql.DB, hold func(context.Context, *lease.BlobClient)) error {
	if _, err := lc.AcquireLease(ctx, 30, nil); err != nil {
		return err
	}
	go hold(ctx, lc)
	for j := range jobs {
		db.ExecContext(ctx, `UPDATE invoices SET sent = true WHERE id = $1`, j.ID)
	}
	return nil
}

// shortSleep waits less than half the lease.
func shortSleep(ctx context.Context, lc *lease.BlobClient, db *sql.DB) error {
	if _, err := lc.AcquireLease(ctx, 60, nil); err != nil {
		return err
	}
	defer lc.ReleaseLease(ctx, nil)
	time.Sleep(5 * time.Second)
	_, err := db.ExecContext(ctx, `UPDATE jobs SET last_run = now() WHERE name = 'nightly'`)
	return err
}

// releasedBefore: the lease is released before the long loop starts.
func releasedBefore(ctx context.Context, lc *lease.BlobClient, jobs <-chan Invoice, db *sql.DB) error {
	if _, err := lc.AcquireLease(ctx, 30, nil); err != nil {
		return err
	}
	db.ExecContext(ctx, `UPDATE jobs SET owner = 'me' WHERE name = 'sender'`)
	if _, err := lc.ReleaseLease(ctx, nil); err != nil {
		return err
	}
	for j := range jobs {
		db.ExecContext(ctx, `UPDATE invoices SET sent = true WHERE id = $1`, j.ID)
	}
	return nil
}

// tick backs off in the acquire's failure branch; the work itself is one
// write.
func tick(ctx context.Context, lc *lease.BlobClient, db *sql.DB, backoff time.Duration) {
	for range time.Tick(time.Minute) {
		if _, err := lc.AcquireLease(ctx, 30, nil); err != nil {
			time.Sleep(backoff)
			continue
		}
		db.ExecContext(ctx, `UPDATE jobs SET last_run = now() WHERE name = 'tick'`)
		lc.ReleaseLease(ctx, nil)
	}
}
