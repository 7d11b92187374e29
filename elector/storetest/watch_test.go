package storetest_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector/memstore"
	"github.com/gatesift/gatesift-vet/elector/storetest"
)

// cancellable is a memstore whose watches end when stop is called, as a
// watch whose connection broke does.
type cancellable struct {
	*memstore.Store
	stop context.CancelFunc
	ctx  context.Context
}

func (c *cancellable) Watch(ctx context.Context, name string) (<-chan struct{}, error) {
	merged, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-c.ctx.Done():
		case <-merged.Done():
		}
		cancel()
	}()
	return c.Store.Watch(merged, name)
}

func TestWatchBreakPassesWhenTheWatchCloses(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	s := &cancellable{Store: memstore.New(), ctx: ctx, stop: stop}
	storetest.WatchBreak(t, s, 50*time.Millisecond, 5*time.Second, stop)
}

// TestWatchBreakFailsWhenTheWatchStaysOpen proves the check can fail: a
// fault that breaks nothing leaves the watch open, in a child process.
func TestWatchBreakFailsWhenTheWatchStaysOpen(t *testing.T) {
	if os.Getenv(brokenEnv) == "watch-stays-open" {
		storetest.WatchBreak(t, memstore.New(), 50*time.Millisecond, 300*time.Millisecond, func() {})
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWatchBreakFailsWhenTheWatchStaysOpen$", "-test.count=1")
	cmd.Env = append(os.Environ(), brokenEnv+"=watch-stays-open")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "watch channel still open") {
		t.Fatalf("WatchBreak passed a watch that never closed (err %v):\n%s", err, out)
	}
}
