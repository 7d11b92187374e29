// Package scopedflow: a ticker loop that its starter ends before returning,
// told from the starter's control flow rather than a defer (a close or a
// cancel on every path to a return), or started through a closure that
// only forwards the stop channel or context. Each negative has a positive
// twin that breaks one part of it.
package scopedflow

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

type meter struct {
	db      *sql.DB
	quit    chan struct{}
	closing atomic.Bool
}

func (m *meter) tally(ctx context.Context) (int, error) {
	var n int
	err := m.db.QueryRowContext(ctx, "SELECT count(*) FROM readings").Scan(&n)
	return n, err
}

func (m *meter) ping(ctx context.Context) error { return m.db.PingContext(ctx) }

// record inserts one reading; every loop below calls it on its ticker.
func (m *meter) record() { m.db.Exec("INSERT INTO readings (at) VALUES (now())") }

// Negative: stop is closed after the work, on the one path to the return.
func (m *meter) measureOnce(ctx context.Context) (int, error) {
	stop := make(chan struct{})
	go m.sampleA(stop)
	n, err := m.tally(ctx)
	close(stop)
	return n, err
}

func (m *meter) sampleA(stop chan struct{}) {
	t := time.NewTicker(1 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.record()
		case <-stop:
			return
		}
	}
}

// Negative: an early return that closes stop too.
func (m *meter) measureChecked(ctx context.Context) (int, error) {
	stop := make(chan struct{})
	go m.sampleB(stop)
	if err := m.ping(ctx); err != nil {
		close(stop)
		return 0, err
	}
	n, err := m.tally(ctx)
	close(stop)
	return n, err
}

func (m *meter) sampleB(stop chan struct{}) {
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.record()
		case <-stop:
			return
		}
	}
}

// Positive twin: the early return leaves stop open; the loop outlives the
// call.
func (m *meter) measureLeaky(ctx context.Context) (int, error) {
	stop := make(chan struct{})
	go m.sampleC(stop)
	if err := m.ping(ctx); err != nil {
		return 0, err
	}
	n, err := m.tally(ctx)
	close(stop)
	return n, err
}

func (m *meter) sampleC(stop chan struct{}) {
	t := time.NewTicker(3 * time.Second) // want `time.NewTicker runs loop body on every replica every 3s: it inserts into table readings \(via scopedflow.\(\*meter\).record\); guarded by nothing`
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.record()
		case <-stop:
			return
		}
	}
}

// Negative: a path that panics without closing stop is left aside; the
// path that returns closes it. (Its twin is measureLeaky: a path that
// returns instead.)
func (m *meter) measureStrict(ctx context.Context, want int) bool {
	stop := make(chan struct{})
	go m.sampleD(stop)
	n, err := m.tally(ctx)
	if err != nil {
		panic(errors.Join(errors.New("tally"), err))
	}
	close(stop)
	return n >= want
}

func (m *meter) sampleD(stop chan struct{}) {
	t := time.NewTicker(4 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.record()
		case <-stop:
			return
		}
	}
}

// Negative: the loop's context is cancelled, without defer, before the
// return.
func (m *meter) measureCtx(ctx context.Context) int {
	ctx, cancel := context.WithCancel(ctx)
	go m.sampleCtxA(ctx)
	n, _ := m.tally(ctx)
	cancel()
	return n
}

func (m *meter) sampleCtxA(ctx context.Context) {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.record()
		case <-ctx.Done():
			return
		}
	}
}

// Positive twin: only the branch that met its target cancels.
func (m *meter) measureCtxUntil(ctx context.Context, want int) bool {
	ctx, cancel := context.WithCancel(ctx)
	go m.sampleCtxB(ctx)
	if n, _ := m.tally(ctx); n >= want {
		cancel()
		return true
	}
	return false
}

func (m *meter) sampleCtxB(ctx context.Context) {
	t := time.NewTicker(6 * time.Second) // want `time.NewTicker runs loop body on every replica every 6s: it inserts into table readings \(via scopedflow.\(\*meter\).record\); guarded by nothing`
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.record()
		case <-ctx.Done():
			return
		}
	}
}

// Negative: the loop is started through a closure that forwards stop,
// which the starter closes in a defer.
func (m *meter) measureWrapped(ctx context.Context) (int, error) {
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		m.pumpA(stop)
	}()
	return m.tally(ctx)
}

func (m *meter) pumpA(stop chan struct{}) {
	t := time.NewTicker(7 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.record()
		case <-stop:
			return
		}
	}
}

// Positive twin: the closure forwards quit, which the starter keeps for
// Close; the stop it closes is another channel.
func (m *meter) measureWrappedQuit(ctx context.Context) (int, error) {
	stop := make(chan struct{})
	defer close(stop)
	quit := make(chan struct{})
	m.quit = quit
	go func() {
		m.pumpB(quit)
	}()
	return m.tally(ctx)
}

func (m *meter) Close() { close(m.quit) }

func (m *meter) pumpB(stop chan struct{}) {
	t := time.NewTicker(8 * time.Second) // want `time.NewTicker runs loop body on every replica every 8s: it inserts into table readings \(via scopedflow.\(\*meter\).record\); guarded by nothing`
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.record()
		case <-stop:
			return
		}
	}
}

// Negative: a closure that marks a WaitGroup done and forwards the
// context, which the starter cancels (without defer) before it returns.
func (m *meter) measureGrouped(ctx context.Context) int {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		m.pumpCtxA(ctx)
	}()
	n, _ := m.tally(ctx)
	cancel()
	wg.Wait()
	return n
}

func (m *meter) pumpCtxA(ctx context.Context) {
	t := time.NewTicker(9 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.record()
		case <-ctx.Done():
			return
		}
	}
}

// Positive twin: the closure loops itself, restarting the loop after the
// starter's cancel until the meter is closing.
func (m *meter) measureRestarting(ctx context.Context) int {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !m.closing.Load() {
			m.pumpCtxB(ctx)
		}
	}()
	n, _ := m.tally(ctx)
	cancel()
	return n
}

func (m *meter) pumpCtxB(ctx context.Context) {
	t := time.NewTicker(10 * time.Second) // want `time.NewTicker runs loop body on every replica every 10s: it inserts into table readings \(via scopedflow.\(\*meter\).record\); guarded by nothing`
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.record()
		case <-ctx.Done():
			return
		}
	}
}

// Negative: the closure takes the stop channel as a receive-only
// parameter; the starter closes it on both paths.
func (m *meter) measureParam(ctx context.Context) (int, error) {
	stop := make(chan struct{})
	go func(done <-chan struct{}) {
		m.pumpC(done)
	}(stop)
	n, err := m.tally(ctx)
	if err != nil {
		close(stop)
		return 0, err
	}
	close(stop)
	return n, nil
}

func (m *meter) pumpC(stop <-chan struct{}) {
	t := time.NewTicker(11 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.record()
		case <-stop:
			return
		}
	}
}

// Positive twin: the closure forwards its second parameter, quit, kept
// for Close; the starter closes the first.
func (m *meter) measureParamQuit(ctx context.Context) (int, error) {
	stop := make(chan struct{})
	quit := make(chan struct{})
	m.quit = quit
	go func(first, second <-chan struct{}) {
		m.pumpD(second)
	}(stop, quit)
	n, err := m.tally(ctx)
	close(stop)
	return n, err
}

func (m *meter) pumpD(stop <-chan struct{}) {
	t := time.NewTicker(12 * time.Second) // want `time.NewTicker runs loop body on every replica every 12s: it inserts into table readings \(via scopedflow.\(\*meter\).record\); guarded by nothing`
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.record()
		case <-stop:
			return
		}
	}
}

// Negative: each round starts a loop on a fresh channel and closes it
// before the next.
func (m *meter) measureRounds(ctx context.Context, rounds int) {
	for i := 0; i < rounds; i++ {
		stop := make(chan struct{})
		go m.sampleE(stop)
		m.tally(ctx)
		close(stop)
	}
}

func (m *meter) sampleE(stop chan struct{}) {
	t := time.NewTicker(13 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.record()
		case <-stop:
			return
		}
	}
}

// Positive twin: only the last round's channel is closed; the loops of the
// rounds before keep running (every path to the return passes a close, but
// of a channel made after theirs).
func (m *meter) measureUntilFull(ctx context.Context, want int) {
	for {
		stop := make(chan struct{})
		go m.sampleF(stop)
		if n, _ := m.tally(ctx); n >= want {
			close(stop)
			return
		}
	}
}

func (m *meter) sampleF(stop chan struct{}) {
	t := time.NewTicker(14 * time.Second) // want `time.NewTicker runs loop body on every replica every 14s: it inserts into table readings \(via scopedflow.\(\*meter\).record\); guarded by nothing`
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.record()
		case <-stop:
			return
		}
	}
}

// Negative: the starter polls until the count is reached, then closes
// stop; its own loop leaves.
func (m *meter) measurePolled(ctx context.Context, want int) {
	stop := make(chan struct{})
	go m.sampleG(stop)
	for {
		if n, _ := m.tally(ctx); n >= want {
			break
		}
	}
	close(stop)
}

func (m *meter) sampleG(stop chan struct{}) {
	t := time.NewTicker(15 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.record()
		case <-stop:
			return
		}
	}
}

// Positive twin: the starter's own loop never leaves, so the close after
// it never runs and the loop it started runs for good.
func (m *meter) serveForever(ctx context.Context) {
	stop := make(chan struct{})
	go m.sampleH(stop)
	for {
		m.tally(ctx)
	}
}

func (m *meter) sampleH(stop chan struct{}) {
	t := time.NewTicker(16 * time.Second) // want `time.NewTicker runs loop body on every replica every 16s: it inserts into table readings \(via scopedflow.\(\*meter\).record\); guarded by nothing`
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.record()
		case <-stop:
			return
		}
	}
}

// Positive twin: the starter blocks for good in an empty select (go/ssa
// follows it with a panic, which is no path that ends the loop).
func (m *meter) serveBlocked() {
	stop := make(chan struct{})
	go m.sampleI(stop)
	select {}
}

func (m *meter) sampleI(stop chan struct{}) {
	t := time.NewTicker(17 * time.Second) // want `time.NewTicker runs loop body on every replica every 17s: it inserts into table readings \(via scopedflow.\(\*meter\).record\); guarded by nothing`
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.record()
		case <-stop:
			return
		}
	}
}

// Positive twin of measureWrapped: the closure is also called in the
// starter itself, where its loop waits for a close that comes only after
// it returns.
func (m *meter) measureTwice(ctx context.Context) (int, error) {
	stop := make(chan struct{})
	defer close(stop)
	pump := func() {
		m.pumpE(stop)
	}
	go pump()
	pump()
	return m.tally(ctx)
}

func (m *meter) pumpE(stop chan struct{}) {
	t := time.NewTicker(18 * time.Second) // want `time.NewTicker runs loop body on every replica every 18s: it inserts into table readings \(via scopedflow.\(\*meter\).record\); guarded by nothing`
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.record()
		case <-stop:
			return
		}
	}
}
