package le1001

import (
	"context"
	"database/sql"
	"os"
	"time"
)

// Orchestrators name each running copy in an environment variable with
// their own prefix (an allocation, a task, a machine): a heartbeat keyed by
// it is this replica's own row.

// allocID returns the scheduler's identifier of this running copy.
func allocID() string {
	return os.Getenv("NOMAD_ALLOC_ID")
}

// Negative: the heartbeat row is keyed by the allocation ID, read through
// a helper.
func allocHeartbeat(ctx context.Context, db *sql.DB) {
	for range time.Tick(10 * time.Second) {
		db.ExecContext(ctx, `UPDATE members SET seen_at = now() WHERE id = $1`, allocID())
	}
}

// Negative: the same keyed by a prefixed machine ID.
func machineHeartbeat(ctx context.Context, db *sql.DB) {
	id := os.Getenv("CLOUD_MACHINE_ID")
	for range time.Tick(10 * time.Second) {
		db.ExecContext(ctx, `UPDATE members SET seen_at = now() WHERE id = $1`, id)
	}
}

// Negative: and by a prefixed task ID.
func taskHeartbeat(ctx context.Context, db *sql.DB) {
	for range time.Tick(10 * time.Second) {
		db.ExecContext(ctx, `UPDATE members SET seen_at = now() WHERE id = $1`, os.Getenv("MESOS_TASK_ID"))
	}
}

// jobID returns the identifier of the job every copy belongs to.
func jobID() string {
	return os.Getenv("NOMAD_JOB_ID")
}

// Positive twin of allocHeartbeat: the job ID is the same on every copy, so
// every replica rewrites one shared row.
func jobHeartbeat(ctx context.Context, db *sql.DB) {
	for range time.Tick(10 * time.Second) { // want `time.Tick runs loop body on every replica every 10s: it updates table members; guarded by nothing`
		db.ExecContext(ctx, `UPDATE members SET seen_at = now() WHERE id = $1`, jobID())
	}
}

// Positive twin of machineHeartbeat: a prefixed instance ID names a shared
// resource (a database instance), not this copy.
func databaseHeartbeat(ctx context.Context, db *sql.DB) {
	id := os.Getenv("DB_INSTANCE_ID")
	for range time.Tick(10 * time.Second) { // want `time.Tick runs loop body on every replica every 10s: it updates table members; guarded by nothing`
		db.ExecContext(ctx, `UPDATE members SET seen_at = now() WHERE id = $1`, id)
	}
}
