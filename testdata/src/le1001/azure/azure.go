// Package azure runs periodic jobs, some under an Azure Blob lease (the
// pattern card's own example), one without any coordination.
package azure

import (
	"context"
	"database/sql"
	"log/slog"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
)

type Billing struct {
	db *sql.DB
	lc *lease.BlobClient
}

// StartInvoicing: every replica inserts the hourly invoices.
func (b *Billing) StartInvoicing(ctx context.Context) {
	t := time.NewTicker(time.Hour) // want `time.NewTicker runs loop body on every replica every 1h0m0s: it inserts into table invoices`
	go func() {
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				b.db.ExecContext(ctx, `INSERT INTO invoices (account_id, period) SELECT id, date_trunc('hour', now()) FROM accounts WHERE billable`)
			}
		}
	}()
}

// StartDunning runs its body under a 30 s lease, renewed every 10 s by a
// goroutine that cancels the work on failure, released on exit.
func (b *Billing) StartDunning(ctx context.Context) {
	t := time.NewTicker(15 * time.Minute)
	go func() {
		defer t.Stop()
		for range t.C {
			if _, err := b.lc.AcquireLease(ctx, 30, nil); err != nil {
				continue // another replica holds it
			}
			wctx, cancel := context.WithCancel(ctx)
			go func() {
				r := time.NewTicker(10 * time.Second)
				defer r.Stop()
				for {
					select {
					case <-wctx.Done():
						return
					case <-r.C:
						if _, err := b.lc.RenewLease(wctx, nil); err != nil {
							slog.Error("dunning lease lost", "err", err)
							cancel()
							return
						}
					}
				}
			}()
			b.db.ExecContext(wctx, `INSERT INTO dunning_letters (invoice_id) SELECT id FROM invoices WHERE overdue AND NOT dunned`)
			cancel()
			b.lc.ReleaseLease(context.Background(), nil)
		}
	}()
}

// StartPayouts calls a method that takes the lease before the work.
func (b *Billing) StartPayouts(ctx context.Context) {
	for range time.Tick(time.Hour) {
		if err := b.payOnce(ctx); err != nil {
			slog.Warn("payouts", "err", err)
		}
	}
}

func (b *Billing) payOnce(ctx context.Context) error {
	if _, err := b.lc.AcquireLease(ctx, 60, nil); err != nil {
		return err
	}
	defer b.lc.ReleaseLease(context.Background(), nil)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go b.renew(ctx, cancel)
	_, err := b.db.ExecContext(ctx, `INSERT INTO payouts (merchant_id) SELECT id FROM merchants WHERE payable`)
	return err
}

func (b *Billing) renew(ctx context.Context, cancel context.CancelFunc) {
	t := time.NewTicker(20 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := b.lc.RenewLease(ctx, nil); err != nil {
				cancel()
				return
			}
		}
	}
}
