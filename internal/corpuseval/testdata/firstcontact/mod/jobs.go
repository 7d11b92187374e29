// Fixture for the first-contact discovery (internal/corpuseval): every line
// that is a site carries a "site:" comment with its kind and pattern; a line
// without one must not be discovered. Written for this repository.
package fixture

import (
	"context"
	"sync"
	"time"

	bclock "github.com/benbjohnson/clock"
	"github.com/go-co-op/gocron/v2"
	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/util/wait"
)

type Sweeper struct {
	mu    sync.Mutex
	clock bclock.Clock
	clk   Clock
}

// Clock is a project's own clock interface.
type Clock interface {
	NewTicker(d time.Duration) *time.Ticker
	Sleep(d time.Duration)
}

func (s *Sweeper) Run(ctx context.Context) {
	t := time.NewTicker(time.Minute) // site: job time.NewTicker
	defer t.Stop()
	for range time.Tick(time.Hour) { // site: job time.Tick
		s.mu.Lock() // a process-local mutex takes no argument: not a site
		s.mu.Unlock()
	}
}

func rearm() {
	var f func()
	f = func() {
		time.AfterFunc(time.Second, f) // site: job time.AfterFunc
	}
	time.AfterFunc(time.Second, f) // site: job time.AfterFunc
}

func timerLoop(ctx context.Context) {
	timer := time.NewTimer(time.Second) // site: job time.NewTimer + Reset
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
			timer.Reset(time.Second)
		}
	}
}

func sleepLoop() {
	for { // site: job sleep loop (time.Sleep)
		work()
		time.Sleep(time.Minute)
	}
}

func selectLoop(ctx context.Context) {
	for { // site: job sleep loop (time.After)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Minute):
			work()
		}
	}
}

func nested() {
	for i := 0; i < 3; i++ { // the sleep is in the inner loop and in a goroutine: not a site
		for { // site: job sleep loop (time.Sleep)
			time.Sleep(time.Second)
		}
		go func() {
			time.Sleep(time.Second)
		}()
	}
	for i := 0; i < 3; i++ { // no wait at all: not a site
		work()
	}
}

func k8s(ctx context.Context) {
	go wait.Until(work, time.Minute, ctx.Done())                               // site: job wait.Until
	wait.JitterUntilWithContext(ctx, nil, time.Minute, 1.2, true)              // site: job wait.JitterUntilWithContext
	_ = wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, nil) // a bounded retry: not a site
	_ = wait.PollUntilContextCancel(ctx, time.Second, true, nil)               // site: job wait.PollUntilContextCancel
}

func crons(s gocron.Scheduler) {
	c := cron.New()
	c.AddFunc("@every 1m", work)                                    // site: job cron .AddFunc
	s.NewJob(gocron.DurationJob(time.Minute), gocron.NewTask(work)) // site: job cron .NewJob
	c.Start()
}

func (s *Sweeper) clocks() {
	tk := s.clock.Ticker(time.Minute) // site: job clock .Ticker
	_ = tk
	_ = s.clk.NewTicker(time.Minute)          // site: job clock .NewTicker
	bclock.New().AfterFunc(time.Second, work) // site: job clock .AfterFunc
	for {                                     // site: job sleep loop (clock .Sleep)
		s.clk.Sleep(time.Second)
	}
}

func work() {}
