package le3001

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5/pgxpool"
)

// claimJob inserts a lock row that nothing ever expires.
func claimJob(ctx context.Context, db *sql.DB, name, owner string) (bool, error) {
	res, err := db.ExecContext(ctx, `INSERT INTO job_locks (name, owner) VALUES ($1, $2) ON CONFLICT DO NOTHING`, name, owner) // want `ExecContext takes a lock row in table job_locks with no expiry column`
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

const takeLeadership = `
	UPDATE leader_election
	   SET holder = $1
	 WHERE id = 1 AND holder IS NULL`

func becomeLeader(ctx context.Context, pool *pgxpool.Pool, me string) (bool, error) {
	tag, err := pool.Exec(ctx, takeLeadership, me) // want `Exec takes a lock row in table leader_election with no expiry column`
	return tag.RowsAffected() == 1, err
}

// --- negatives ---

func claimWithExpiry(ctx context.Context, db *sql.DB, name, owner string) error {
	_, err := db.ExecContext(ctx, `INSERT INTO job_locks (name, owner, expires_at) VALUES ($1, $2, now() + interval '30 seconds')
		ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at WHERE job_locks.expires_at < now()`, name, owner)
	return err
}

func shedlockStyle(ctx context.Context, db *sql.DB, name, owner string) error {
	_, err := db.ExecContext(ctx, `INSERT INTO shedlock (name, lock_until, locked_at, locked_by) VALUES ($1, $2, $3, $4)`, name, 0, 0, owner)
	return err
}

func insertBlock(ctx context.Context, db *sql.DB, hash, miner string) error {
	_, err := db.ExecContext(ctx, `INSERT INTO blocks (hash, owner) VALUES ($1, $2)`, hash, miner)
	return err
}

func insertRelease(ctx context.Context, db *sql.DB, version, owner string) error {
	_, err := db.ExecContext(ctx, `INSERT INTO releases (version, owner) VALUES ($1, $2)`, version, owner)
	return err
}

func releaseRow(ctx context.Context, db *sql.DB, name, owner string) error {
	_, err := db.ExecContext(ctx, `UPDATE job_locks SET owner = NULL WHERE name = $1 AND owner = $2`, name, owner)
	return err
}

func dynamicSQL(ctx context.Context, db *sql.DB, table, owner string) error {
	_, err := db.ExecContext(ctx, "INSERT INTO "+table+" (owner) VALUES ($1)", owner)
	return err
}
