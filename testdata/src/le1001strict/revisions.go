package le1001strict

import (
	"context"
	"time"
)

type gapRow struct{ Rev int64 }

type gapLog interface {
	After(ctx context.Context, rev int64) ([]gapRow, error)
	Fill(ctx context.Context, rev int64) error
}

// The revision after the last row read, handed to an opaque write: what
// the write does with it is out of sight, silent by default (le1001/rmw
// revisions.go), shown here.
func pollGaps(ctx context.Context, l gapLog) {
	last := int64(0)
	for range time.Tick(time.Second) { // want `time.Tick runs loop body on every replica every 1s: it reads a value through l.After \(revisions.go:\d+\) and hands a value derived from it, incremented, to l.Fill \(revisions.go:\d+\), whose write the analysis cannot read, so concurrent replicas may lose updates or repeat values; guarded by nothing`
		rows, err := l.After(ctx, last)
		if err != nil {
			continue
		}
		for _, r := range rows {
			if r.Rev != last+1 {
				l.Fill(ctx, last+1)
				break
			}
			last = r.Rev
		}
	}
}
