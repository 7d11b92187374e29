package rmw

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// Change is one row of a revision log whose store is an interface with no
// implementation in sight.
type Change struct {
	Rev      int64
	Key      string
	Attempts int
}

type RevisionLog interface {
	After(ctx context.Context, rev int64) ([]Change, error)
	// FillGap records a placeholder at rev: what it writes (an insert keyed
	// by rev, which a second replica's fill conflicts with, or an update)
	// is out of sight.
	FillGap(ctx context.Context, rev int64) error
	Retry(ctx context.Context, c *Change) error
}

// Negative: a poller that hands the revision after the last one read to an
// opaque write: a position derived from the rows, not the value read
// stored back, so no evidence of a lost update (unknown; le1001strict
// shows it).
func PollRevisions(ctx context.Context, l RevisionLog) {
	last := int64(0)
	for range time.Tick(time.Second) {
		rows, err := l.After(ctx, last)
		if err != nil {
			continue
		}
		for _, c := range rows {
			next := last + 1
			if c.Rev != next {
				l.FillGap(ctx, next)
				break
			}
			last = c.Rev
		}
	}
}

// Twin: an element of the rows read, its counter moved on, written back
// through the same opaque store.
func RetryChanges(ctx context.Context, l RevisionLog) {
	for range time.Tick(time.Second) { // want `reads a value through l.After \(revisions.go:\d+\) and writes it back incremented through l.Retry \(revisions.go:\d+\)`
		rows, err := l.After(ctx, 0)
		if err != nil {
			continue
		}
		for i := range rows {
			rows[i].Attempts++
			l.Retry(ctx, &rows[i])
		}
	}
}

// Sequence hands out numbers through an opaque store.
type Sequence interface {
	Current(ctx context.Context) (int64, error)
	Advance(ctx context.Context, n int64) error
}

// Twin: the scalar read is the scalar written back, moved on.
func AdvanceSequence(ctx context.Context, s Sequence) {
	for range time.Tick(time.Second) { // want `reads a value through s.Current \(revisions.go:\d+\) and writes it back incremented through s.Advance \(revisions.go:\d+\)`
		n, err := s.Current(ctx)
		if err != nil {
			continue
		}
		s.Advance(ctx, n+1)
	}
}

// Twin: a write the knowledge base reads (Redis SET) is judged by what it
// does, whatever the type of the value it takes (an int64 moved on from a
// *redis.StringCmd read): the type rule is for opaque stores only.
func CountRuns(ctx context.Context, rdb *redis.Client) {
	for range time.Tick(time.Minute) { // want `reads a value through rdb.Get \(revisions.go:\d+\) and writes it back incremented through rdb.Set \(revisions.go:\d+\)`
		n, err := rdb.Get(ctx, "runs:total").Int64()
		if err != nil {
			continue
		}
		rdb.Set(ctx, "runs:total", n+1, 0)
	}
}
