// Package azure renews Azure Blob leases while work runs: renewals whose
// failure stops the work, and renewals whose failure is only logged.
package azure

import (
	"context"
	"database/sql"
	"log"
	"log/slog"
	"os"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"k8s.io/klog/v2"
)

type Worker struct {
	lc *lease.BlobClient
	db *sql.DB
}

// keepLease logs a failed renewal and goes on: the lease lapses, another
// replica acquires it, and both run the sender.
func (w *Worker) keepLease(ctx context.Context) {
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := w.lc.RenewLease(ctx, nil); err != nil { // want `the failure of \(lease.BlobClient\).RenewLease is only logged while the work continues`
				slog.Warn("renew lease failed", "err", err)
			}
		}
	}
}

func (w *Worker) Run(ctx context.Context) error {
	if _, err := w.lc.AcquireLease(ctx, 30, nil); err != nil {
		return err
	}
	defer w.lc.ReleaseLease(context.Background(), nil)
	go w.keepLease(ctx)
	for {
		if _, err := w.db.ExecContext(ctx, `UPDATE outbox SET sent = true WHERE id IN (SELECT id FROM outbox WHERE NOT sent LIMIT 100)`); err != nil {
			return err
		}
		time.Sleep(time.Second)
	}
}

// renewLoop logs and continues to the next tick.
func renewLoop(ctx context.Context, lc *lease.ContainerClient, work func(context.Context)) {
	go func() {
		for range time.Tick(15 * time.Second) {
			_, err := lc.RenewLease(ctx, nil) // want `the failure of \(lease.ContainerClient\).RenewLease is only logged while the work continues`
			if err != nil {
				klog.Errorf("renewing container lease: %v", err)
				continue
			}
			klog.Infof("container lease renewed")
		}
	}()
	work(ctx)
}

// renewIgnored throws the renewal's result away.
func renewIgnored(ctx context.Context, lc *lease.BlobClient, work func(context.Context)) {
	go func() {
		for range time.Tick(10 * time.Second) {
			lc.RenewLease(ctx, nil) // want `the result of \(lease.BlobClient\).RenewLease is discarded`
		}
	}()
	work(ctx)
}

func renewBlank(ctx context.Context, lc *lease.BlobClient, work func(context.Context)) {
	go func() {
		for range time.Tick(10 * time.Second) {
			_, _ = lc.RenewLease(ctx, nil) // want `the result of \(lease.BlobClient\).RenewLease is discarded`
		}
	}()
	work(ctx)
}

// acquireLogged logs a failed acquire and runs the job anyway.
func acquireLogged(ctx context.Context, lc *lease.BlobClient, job func(context.Context)) {
	if _, err := lc.AcquireLease(ctx, 60, nil); err != nil { // want `the failure of \(lease.BlobClient\).AcquireLease is only logged and the work runs anyway`
		log.Printf("acquire lease: %v", err)
	}
	job(ctx)
}

// --- negatives ---

// renewCancels: a failed renewal cancels the work's context.
func renewCancels(ctx context.Context, lc *lease.BlobClient, work func(context.Context) error) error {
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
					slog.Error("lease lost, stopping", "err", err)
					cancel()
					return
				}
			}
		}
	}()
	return work(ctx)
}

// renewReturns: the renew loop is the work loop; a failure returns.
func renewReturns(ctx context.Context, lc *lease.BlobClient, db *sql.DB) error { // want renewReturns:"renews via \\(lease.BlobClient\\).RenewLease"
	for range time.Tick(10 * time.Second) {
		if _, err := lc.RenewLease(ctx, nil); err != nil {
			log.Printf("renew: %v", err)
			return err
		}
		db.ExecContext(ctx, `UPDATE leader SET seen = now() WHERE name = 'sender'`)
	}
	return nil
}

// renewExits: a failure ends the process, which the orchestrator restarts.
func renewExits(ctx context.Context, lc *lease.BlobClient, work func(context.Context)) {
	go func() {
		for range time.Tick(10 * time.Second) {
			if _, err := lc.RenewLease(ctx, nil); err != nil {
				log.Printf("lease lost: %v", err)
				os.Exit(1)
			}
		}
	}()
	work(ctx)
}

func renewFatal(ctx context.Context, lc *lease.BlobClient, work func(context.Context)) {
	go func() {
		for range time.Tick(10 * time.Second) {
			if _, err := lc.RenewLease(ctx, nil); err != nil {
				klog.Fatalf("lease lost: %v", err)
			}
		}
	}()
	work(ctx)
}

// renewSignals: a failure closes the lost channel the work selects on.
func renewSignals(ctx context.Context, lc *lease.BlobClient, lost chan struct{}) {
	for range time.Tick(10 * time.Second) {
		if _, err := lc.RenewLease(ctx, nil); err != nil {
			log.Printf("lease lost: %v", err)
			close(lost)
			return
		}
	}
}

// acquireChecked returns when the lease is held by another replica.
func acquireChecked(ctx context.Context, lc *lease.BlobClient, job func(context.Context)) error {
	if _, err := lc.AcquireLease(ctx, 60, nil); err != nil {
		log.Printf("lease held elsewhere: %v", err)
		return nil
	}
	defer lc.ReleaseLease(ctx, nil)
	job(ctx)
	return nil
}

// releaseLogged: a failed release is only logged, and that is fine: the
// lease expires by itself.
func releaseLogged(ctx context.Context, lc *lease.BlobClient) {
	if _, err := lc.ReleaseLease(ctx, nil); err != nil {
		log.Printf("release lease: %v", err)
	}
}

// acquireRetry skips the tick's job when another replica holds the lease.
func acquireRetry(ctx context.Context, lc *lease.BlobClient, job func(context.Context)) {
	for range time.Tick(time.Minute) {
		if _, err := lc.AcquireLease(ctx, 60, nil); err != nil {
			log.Printf("not the leader this time: %v", err)
			continue
		}
		job(ctx)
		lc.ReleaseLease(ctx, nil)
	}
}
