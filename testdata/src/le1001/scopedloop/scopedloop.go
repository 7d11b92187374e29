// Package scopedloop: a ticker loop started by a function that ends it when
// it returns (a deferred close of the stop channel it passed, a deferred
// cancel of the context it passed) lives only for that call: it is not a
// background job of its own. Each negative has a positive twin that breaks
// one part of it.
package scopedloop

import (
	"context"
	"database/sql"
	"time"
)

type probe struct {
	db     *sql.DB
	every  time.Duration
	stop   chan struct{}
	cancel context.CancelFunc
}

func (p *probe) count(ctx context.Context) int {
	var n int
	p.db.QueryRowContext(ctx, "SELECT count(*) FROM samples").Scan(&n)
	return n
}

// Negative: the loop ends on stop, which awaitSamples closes when it returns.
func (p *probe) awaitSamples(ctx context.Context, want int) bool {
	stop := make(chan struct{})
	go p.feed(stop)
	defer close(stop)
	for i := 0; i < 10; i++ {
		if p.count(ctx) >= want {
			return true
		}
	}
	return false
}

func (p *probe) feed(stop chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.db.Exec("INSERT INTO samples (at) VALUES (now())")
		case <-stop:
			return
		}
	}
}

// Positive twin: the stop channel is kept and closed by Close, not when the
// spawner returns.
func (p *probe) startSampling() {
	stop := make(chan struct{})
	p.stop = stop
	go p.feedUntilClose(stop)
}

func (p *probe) Close() { close(p.stop) }

func (p *probe) feedUntilClose(stop chan struct{}) {
	t := time.NewTicker(time.Second) // want `time.NewTicker runs loop body on every replica every 1s: it inserts into table samples; guarded by nothing`
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.db.Exec("INSERT INTO samples (at) VALUES (now())")
		case <-stop:
			return
		}
	}
}

// Negative: the context the loop ends on is cancelled when awaitWithContext
// returns.
func (p *probe) awaitWithContext(ctx context.Context, want int) bool {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go p.feedCtx(ctx)
	return p.count(ctx) >= want
}

func (p *probe) feedCtx(ctx context.Context) {
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.db.Exec("INSERT INTO samples (at) VALUES (now())")
		case <-ctx.Done():
			return
		}
	}
}

// Positive twin: the cancel of the loop's context is kept in a field and
// called by Stop; the cancel deferred here is another context's.
func (p *probe) startWithContext(ctx context.Context) {
	warmCtx, warmCancel := context.WithTimeout(ctx, time.Second)
	defer warmCancel()
	p.count(warmCtx)
	loopCtx, cancel := context.WithCancel(ctx)
	p.cancel = cancel
	go p.feedCtxUntilStop(loopCtx)
}

func (p *probe) Stop() { p.cancel() }

func (p *probe) feedCtxUntilStop(ctx context.Context) {
	t := time.NewTicker(2 * time.Second) // want `time.NewTicker runs loop body on every replica every 2s: it inserts into table samples; guarded by nothing`
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.db.Exec("INSERT INTO samples (at) VALUES (now())")
		case <-ctx.Done():
			return
		}
	}
}

// Positive twin: the spawner closes stop on return, but the loop never
// waits on it and outlives the call.
func (p *probe) awaitIgnored(ctx context.Context, want int) bool {
	stop := make(chan struct{})
	go p.feedIgnoringStop(stop)
	defer close(stop)
	return p.count(ctx) >= want
}

func (p *probe) feedIgnoringStop(stop chan struct{}) {
	t := time.NewTicker(3 * time.Second) // want `time.NewTicker runs loop body on every replica every 3s: it inserts into table samples; guarded by nothing`
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.db.Exec("INSERT INTO samples (at) VALUES (now())")
		}
	}
}

// Positive twin: one spawner ends the loop on return, another keeps it
// running until Close; the loop is a job of the second.
func (p *probe) awaitShared(ctx context.Context) bool {
	stop := make(chan struct{})
	go p.feedShared(stop)
	defer close(stop)
	return p.count(ctx) > 0
}

func (p *probe) startShared() {
	p.stop = make(chan struct{})
	go p.feedShared(p.stop)
}

func (p *probe) feedShared(stop chan struct{}) {
	t := time.NewTicker(4 * time.Second) // want `time.NewTicker runs loop body on every replica every 4s: it inserts into table samples; guarded by nothing`
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.db.Exec("INSERT INTO samples (at) VALUES (now())")
		case <-stop:
			return
		}
	}
}

// Negative: a loop paced by time.After, ended by the spawner's deferred
// close.
func (p *probe) awaitPaced(ctx context.Context) bool {
	stop := make(chan struct{})
	go p.feedPaced(stop)
	defer close(stop)
	return p.count(ctx) > 0
}

func (p *probe) feedPaced(stop chan struct{}) {
	for {
		select {
		case <-time.After(5 * time.Second):
			p.db.Exec("INSERT INTO samples (at) VALUES (now())")
		case <-stop:
			return
		}
	}
}

// Positive twin: the same paced loop, its stop channel closed by Close.
func (p *probe) startPaced() {
	stop := make(chan struct{})
	p.stop = stop
	go p.feedPacedUntilClose(stop)
}

func (p *probe) feedPacedUntilClose(stop chan struct{}) {
	for { // want `for loop paced by time.After runs loop body on every replica every 5s: it inserts into table samples; guarded by nothing`
		select {
		case <-time.After(5 * time.Second):
			p.db.Exec("INSERT INTO samples (at) VALUES (now())")
		case <-stop:
			return
		}
	}
}

// Positive: a periodic job calls a spawner whose loop is scoped to the call;
// the loop's insert is the job's, reported at the job's ticker (and not
// again at the scoped loop's).
func (p *probe) runChecks(ctx context.Context) {
	t := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it inserts into table samples \(via scopedloop.\(\*probe\).feedOuter\); guarded by nothing`
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.awaitOuter(ctx)
		case <-ctx.Done():
			return
		}
	}
}

func (p *probe) awaitOuter(ctx context.Context) bool {
	stop := make(chan struct{})
	go p.feedOuter(stop)
	defer close(stop)
	return p.count(ctx) > 0
}

func (p *probe) feedOuter(stop chan struct{}) {
	t := time.NewTicker(6 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.db.Exec("INSERT INTO samples (at) VALUES (now())")
		case <-stop:
			return
		}
	}
}
