package etcdstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
)

// retry calls op until it returns nil or an error that is not transient for
// a client reconnecting to a restarted server (ErrLost and ErrHeld are
// answers, not transport failures), or until ctx ends.
func retry(ctx context.Context, op func(ctx context.Context) error) error {
	for {
		callCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := op(callCtx)
		cancel()
		if err == nil || errors.Is(err, elector.ErrLost) || errors.Is(err, elector.ErrHeld) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// TestRestartTokensNeverGoBack restarts etcd on the same data directory,
// gracefully and with kill -9, and checks that a live term survives (the
// lease is durable), and that every token issued afterwards is above every
// token issued before.
func TestRestartTokensNeverGoBack(t *testing.T) {
	e, open := startEtcd(t)
	a, b := open(t), open(t)
	ctx := testCtx(t, 60*time.Second)
	var tokens []uint64
	issued := func(tm elector.Term) {
		t.Helper()
		if n := len(tokens); n > 0 && tm.Token <= tokens[n-1] {
			t.Fatalf("token %d issued after %d: tokens went back (all: %v)", tm.Token, tokens[n-1], tokens)
		}
		tokens = append(tokens, tm.Token)
	}

	ta, err := a.Acquire(ctx, "job", "a", 3*time.Second)
	if err != nil {
		t.Fatalf("acquire: %v", err)
	}
	issued(ta)

	e.Restart(t)
	// The lease was persisted and etcd restarts every lease's TTL when it
	// becomes leader again, so a's term is still live and renewable.
	if err := retry(ctx, func(ctx context.Context) error { return a.Renew(ctx, ta, 3*time.Second) }); err != nil {
		t.Fatalf("renew after graceful restart: %v", err)
	}
	if err := retry(ctx, func(ctx context.Context) error {
		_, err := b.Acquire(ctx, "job", "b", 3*time.Second)
		return err
	}); !errors.Is(err, elector.ErrHeld) {
		t.Fatalf("b acquire after restart: %v, want ErrHeld", err)
	}
	if err := retry(ctx, func(ctx context.Context) error { return a.Release(ctx, ta) }); err != nil {
		t.Fatalf("release after restart: %v", err)
	}
	var tb elector.Term
	if err := retry(ctx, func(ctx context.Context) (err error) {
		tb, err = b.Acquire(ctx, "job", "b", 3*time.Second)
		return err
	}); err != nil {
		t.Fatalf("b acquire: %v", err)
	}
	issued(tb)

	// A crash right after an acknowledged grant: etcd syncs its WAL before
	// answering, so the grant and its revision survive.
	if err := e.Kill(); err != nil {
		t.Fatal(err)
	}
	e.Resume(t)
	var rec elector.Record
	if err := retry(ctx, func(ctx context.Context) (err error) {
		rec, err = a.Read(ctx, "job")
		return err
	}); err != nil {
		t.Fatalf("read after kill -9: %v", err)
	}
	if !rec.Held || rec.Term != tb {
		t.Fatalf("read after kill -9 = %+v; want b's term %+v still held", rec, tb)
	}
	if err := retry(ctx, func(ctx context.Context) error { return b.Release(ctx, tb) }); err != nil {
		t.Fatalf("release after kill -9: %v", err)
	}
	for i := 0; i < 3; i++ {
		var tm elector.Term
		if err := retry(ctx, func(ctx context.Context) (err error) {
			tm, err = a.Acquire(ctx, "job", "a", 2*time.Second)
			return err
		}); err != nil {
			t.Fatalf("acquire %d after kill -9: %v", i, err)
		}
		issued(tm)
		if err := retry(ctx, func(ctx context.Context) error { return a.Release(ctx, tm) }); err != nil {
			t.Fatalf("release %d: %v", i, err)
		}
		if i == 1 {
			if err := e.Kill(); err != nil {
				t.Fatal(err)
			}
			e.Resume(t)
		}
	}
	t.Logf("tokens across a restart and two kill -9: %v", tokens)
}

// TestWatchClosesWhenEtcdDies checks the Watcher contract on a dead server:
// clientv3 alone would keep retrying with the channel open, leaving a
// standby waiting for a wakeup that cannot come.
func TestWatchClosesWhenEtcdDies(t *testing.T) {
	e, open := startEtcd(t)
	wake, err := open(t).Watch(testCtx(t, 20*time.Second), "job")
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	if err := e.Kill(); err != nil {
		t.Fatal(err)
	}
	limit := time.After(15 * time.Second)
	for {
		select {
		case _, ok := <-wake:
			if !ok {
				return
			}
		case <-limit:
			t.Fatal("watch channel still open 15 s after etcd was killed")
		}
	}
}
