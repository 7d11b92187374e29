// Package retryloops: loops that retry one attempt until it completes are
// not periodic work; their sleep or ticker wait is a backoff. Each negative
// has a positive twin, a periodic loop of the same shape that goes round on
// a plain path.
package retryloops

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

type outcome int

const (
	taken outcome = iota
	refused
	busy
	free
)

var errTaken = errors.New("taken")

func probe(ctx context.Context, db *sql.DB) (outcome, error) {
	var n int
	err := db.QueryRowContext(ctx, "SELECT count(*) FROM holds").Scan(&n)
	return outcome(n), err
}

// Negative: a request-path retry; the sleep is under the switch case that
// tries again, every other way through the body returns.
func enqueueOnce(ctx context.Context, db *sql.DB) error {
	for {
		o, err := probe(ctx, db)
		if err != nil {
			return err
		}
		switch o {
		case taken:
			return nil
		case refused:
			return errTaken
		case busy:
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if _, err := db.ExecContext(ctx, "INSERT INTO orders (state) VALUES ('new')"); err != nil {
			if errors.Is(err, errTaken) {
				continue
			}
			return err
		}
		return nil
	}
}

// Positive twin: the same body, but the insert goes round again: periodic.
func enqueueForever(ctx context.Context, db *sql.DB) {
	for { // want `for loop paced by time.Sleep runs loop body on every replica every 100ms: it inserts into table orders; guarded by nothing`
		o, err := probe(ctx, db)
		if err != nil {
			return
		}
		switch o {
		case taken:
			return
		case busy:
			time.Sleep(100 * time.Millisecond)
			continue
		}
		db.ExecContext(ctx, "INSERT INTO orders (state) VALUES ('new')")
		time.Sleep(100 * time.Millisecond)
	}
}

// Positive twins of the try-again branch, which must end in a continue:
// a branch that does the work and waits for the tick goes round on a plain
// path even where the other branch leaves.
func insertWhileBusy(ctx context.Context, db *sql.DB) {
	ticker := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it inserts into table orders; guarded by nothing`
	for {
		if o, _ := probe(ctx, db); o == busy {
			db.ExecContext(ctx, "INSERT INTO orders (state) VALUES ('new')")
			<-ticker.C
		} else {
			return
		}
	}
}

func insertWhileBusySwitch(ctx context.Context, db *sql.DB) {
	ticker := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it inserts into table orders; guarded by nothing`
	for {
		o, _ := probe(ctx, db)
		switch o {
		case busy:
			db.ExecContext(ctx, "INSERT INTO orders (state) VALUES ('new')")
			<-ticker.C
		default:
			return
		}
	}
}

// Positive twin of the success test: a periodic loop that stops on error;
// the branch that goes round is the one where the work succeeded.
func insertUntilError(ctx context.Context, db *sql.DB) error {
	ticker := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it inserts into table orders; guarded by nothing`
	for {
		_, err := db.ExecContext(ctx, "INSERT INTO orders (state) VALUES ('new')")
		if err == nil {
			<-ticker.C
			continue
		}
		return err
	}
}

// Negative: a ticker-paced retry that ends on success or after n attempts.
func announce(ctx context.Context, db *sql.DB, n int) {
	go func() {
		ticker := time.NewTicker(time.Second)
		defer ticker.Stop()
		for i := 0; ; i++ {
			if _, err := db.ExecContext(ctx, "INSERT INTO roles (role) VALUES ('primary')"); err == nil {
				return
			} else if i >= n {
				break
			}
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
			}
		}
	}()
}

// Positive twin: the same ticker loop, but it returns only on shutdown or
// on error; success goes round again.
func announceEvery(ctx context.Context, db *sql.DB) {
	go func() {
		ticker := time.NewTicker(time.Second) // want `time.NewTicker runs loop body on every replica every 1s: it inserts into table roles; guarded by nothing`
		defer ticker.Stop()
		for {
			if _, err := db.ExecContext(ctx, "INSERT INTO roles (role) VALUES ('primary')"); err != nil {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
			}
		}
	}()
}

// Positive: a branch that skips a tick goes round, but so does the insert.
func insertUnlessBusy(ctx context.Context, db *sql.DB) {
	ticker := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it inserts into table orders; guarded by nothing`
	for range ticker.C {
		if o, _ := probe(ctx, db); o == busy {
			continue
		}
		db.ExecContext(ctx, "INSERT INTO orders (state) VALUES ('new')")
	}
}

// Positive: periodic work that logs a failure and sleeps.
func insertAndLog(ctx context.Context, db *sql.DB, logf func(string, ...any)) {
	for { // want `for loop paced by time.Sleep runs loop body on every replica every 30s: it inserts into table orders; guarded by nothing`
		_, err := db.ExecContext(ctx, "INSERT INTO orders (state) VALUES ('new')")
		if err != nil {
			logf("insert: %v", err)
		}
		time.Sleep(30 * time.Second)
	}
}

// Positive: a plain ticker range.
func insertEveryTick(ctx context.Context, db *sql.DB) {
	for range time.Tick(time.Hour) { // want `time.Tick runs loop body on every replica every 1h0m0s: it inserts into table orders; guarded by nothing`
		db.ExecContext(ctx, "INSERT INTO orders (state) VALUES ('new')")
	}
}

// Negative: the failed attempt waits for the tick in its own branch; the
// attempt that succeeds returns.
func announceOrWait(ctx context.Context, db *sql.DB) {
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	for {
		if _, err := db.ExecContext(ctx, "INSERT INTO roles (role) VALUES ('primary')"); err != nil {
			<-ticker.C
		} else {
			return
		}
	}
}

// Positive twin of the failure test, in a tagless switch: the case that
// goes round is the one where the insert succeeded.
func insertUntilErrorSwitch(ctx context.Context, db *sql.DB) error {
	ticker := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it inserts into table orders; guarded by nothing`
	for {
		_, err := db.ExecContext(ctx, "INSERT INTO orders (state) VALUES ('new')")
		switch {
		case err == nil:
			<-ticker.C
			continue
		}
		return err
	}
}

// Positive twin of the case that tries again: a default that goes round
// is not one outcome retried, it is everything but the exit.
func insertUntilFree(ctx context.Context, db *sql.DB) {
	ticker := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it inserts into table orders; guarded by nothing`
	for {
		db.ExecContext(ctx, "INSERT INTO orders (state) VALUES ('new')")
		switch o, _ := probe(ctx, db); o {
		case free:
			return
		default:
			<-ticker.C
			continue
		}
	}
}

// Negative: the branch that waits for the tick and goes round is taken while
// the table is busy; once it is not, the insert is done once.
func insertOnceNotBusy(ctx context.Context, db *sql.DB) {
	ticker := time.NewTicker(time.Minute)
	for {
		if o, _ := probe(ctx, db); o == busy {
			<-ticker.C
			continue
		}
		db.ExecContext(ctx, "INSERT INTO orders (state) VALUES ('new')")
		return
	}
}

// Positive twin of the shutdown test: the same branch on a shutdown
// condition is the loop's own pace; the insert runs on every tick until the
// service stops.
func insertUntilStopped(ctx context.Context, db *sql.DB, stopped func() bool) {
	ticker := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it inserts into table orders; guarded by nothing`
	for {
		db.ExecContext(ctx, "INSERT INTO orders (state) VALUES ('new')")
		if !stopped() {
			<-ticker.C
			continue
		}
		return
	}
}

// Negative: a table that is not free is asked again after the pause; a free
// one gets its insert once.
func insertWhenFree(ctx context.Context, db *sql.DB) error {
	for {
		time.Sleep(30 * time.Second)
		if o, _ := probe(ctx, db); o != free {
			continue
		}
		_, err := db.ExecContext(ctx, "INSERT INTO orders (state) VALUES ('new')")
		return err
	}
}

// Positive twin of the continue that must go round this loop: here the
// continue goes round the inner loop that waits for a free table, and that
// wait ends inside the same branch; the outer loop inserts and sleeps on
// every round.
func insertEachRound(ctx context.Context, db *sql.DB, wake <-chan struct{}) {
	for { // want `for loop paced by time.Sleep runs loop body on every replica every 30s: it inserts into table orders; guarded by nothing`
		db.ExecContext(ctx, "INSERT INTO orders (state) VALUES ('new')")
		time.Sleep(30 * time.Second)
		for {
			if o, _ := probe(ctx, db); o != busy {
				if o == free {
					break
				}
				continue // taken or refused: ask again
			}
			<-wake
		}
	}
}
