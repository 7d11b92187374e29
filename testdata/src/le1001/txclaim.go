package le1001

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// A claim run inside a transaction helper's function literal, its answer
// assigned to a variable of the enclosing function, which returns it; and
// a polling wrapper that checks the answer and returns it too. Writes keyed
// by what the wrapper returns touch only what this replica claimed.

type txJob struct{ ID int64 }

func inTx(db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

func claimTxJobTx(ctx context.Context, tx *sql.Tx) (*txJob, error) {
	now := time.Now()
	var j txJob
	err := tx.QueryRowContext(ctx, `UPDATE tx_jobs SET run_after = $1 WHERE id = (SELECT id FROM tx_jobs WHERE $2 >= run_after ORDER BY id LIMIT 1) RETURNING id`,
		now.Add(time.Minute), now).Scan(&j.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &j, nil
}

// claimTxJob returns what the literal claimed.
func claimTxJob(ctx context.Context, db *sql.DB) (*txJob, error) {
	var j *txJob
	err := inTx(db, func(tx *sql.Tx) error {
		var err error
		j, err = claimTxJobTx(ctx, tx)
		return err
	})
	return j, err
}

func lookupTxJob(ctx context.Context, db *sql.DB) (*txJob, error) {
	var j txJob
	err := db.QueryRowContext(ctx, `SELECT id FROM tx_jobs ORDER BY id LIMIT 1`).Scan(&j.ID)
	return &j, err
}

// claimTxJobElse claims in the literal but returns another row.
func claimTxJobElse(ctx context.Context, db *sql.DB) (*txJob, error) {
	var j *txJob
	if err := inTx(db, func(tx *sql.Tx) error {
		var err error
		j, err = claimTxJobTx(ctx, tx)
		return err
	}); err != nil || j == nil {
		return nil, err
	}
	return lookupTxJob(ctx, db)
}

// waitTxJob polls the claim, checks it and returns it.
func waitTxJob(ctx context.Context, db *sql.DB) (*txJob, error) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
			j, err := claimTxJob(ctx, db)
			if err != nil {
				return nil, err
			}
			if j != nil {
				return j, nil
			}
		}
	}
}

// waitTxJobElse checks the claim but returns another row.
func waitTxJobElse(ctx context.Context, db *sql.DB) (*txJob, error) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
			j, err := claimTxJob(ctx, db)
			if err != nil {
				return nil, err
			}
			if j != nil {
				return lookupTxJob(ctx, db)
			}
		}
	}
}

// Negative: the periodic write is keyed by the job this replica claimed.
func workTxJobs(ctx context.Context, db *sql.DB) {
	j, err := waitTxJob(ctx, db)
	if err != nil || j == nil {
		return
	}
	go func() {
		for {
			time.Sleep(time.Second)
			db.ExecContext(ctx, `UPDATE tx_jobs SET attempts = attempts + 1 WHERE id = $1`, j.ID)
		}
	}()
}

// Positive twin: the literal's claim is not what the helper returns.
func workTxJobsElse(ctx context.Context, db *sql.DB) {
	j, err := claimTxJobElse(ctx, db)
	if err != nil || j == nil {
		return
	}
	go func() {
		for { // want `runs loop body on every replica every 1s: it increments table tx_jobs`
			time.Sleep(time.Second)
			db.ExecContext(ctx, `UPDATE tx_jobs SET attempts = attempts + 1 WHERE id = $1`, j.ID)
		}
	}()
}

// Positive twin: the poller checks the claim but returns another row.
func workTxJobsWaitElse(ctx context.Context, db *sql.DB) {
	j, err := waitTxJobElse(ctx, db)
	if err != nil || j == nil {
		return
	}
	go func() {
		for { // want `runs loop body on every replica every 1s: it increments table tx_jobs`
			time.Sleep(time.Second)
			db.ExecContext(ctx, `UPDATE tx_jobs SET attempts = attempts + 1 WHERE id = $1`, j.ID)
		}
	}()
}
