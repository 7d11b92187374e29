package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
)

// WatchBreak checks that a watch whose connection breaks closes its
// channel, so a standby falls back to polling instead of waiting for
// wakeups that cannot come. It opens a watch on w, checks that it stays
// open and silent for quiet (a quiet lease is not a broken watch), calls
// fault (which breaks the watch's connection: a proxy cut or stall, a
// server kill), and fails unless the channel closes within limit.
func WatchBreak(t *testing.T, w elector.Watcher, quiet, limit time.Duration, fault func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := w.Watch(ctx, LeaseName(t))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case _, ok := <-ch:
		t.Fatalf("watch woke (open %v) without a change", ok)
	case <-time.After(quiet):
	}
	fault()
	deadline := time.After(limit)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatalf("watch channel still open %v after its connection broke", limit)
		}
	}
}
