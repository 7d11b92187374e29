// Package sim is a deterministic simulator for package elector. It runs real
// elector.Candidates (their own deadline, renew and release logic, on an
// injected drifting clock) against a shared in-memory store inside a
// testing/synctest bubble, so hours of virtual time with crashes, pauses,
// partitions, dropped and delayed calls and store restarts take milliseconds,
// and a seed reproduces a run. The checker (check.go) then asserts the safety
// properties the package documents.
//
// A failing seed replays exactly: go test ./elector/sim -run TestSeedsSafe
// -v -seed N logs its terms. (Determinism comes from per-process seeds mixed
// with the virtual time of each decision, and from resolving events that
// would otherwise coincide at one instant in a fixed order; see clock.go.)
//
// Run must be called inside synctest.Test: the bubble's fake clock is the
// global ("real") time the checker judges overlaps by, and the store's clock.
package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing/synctest"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/internal/memserver"
	"github.com/gatesift/gatesift-vet/elector/internal/simhooks"
)

// Config describes one simulated run. The zero values of the fault fields
// mean no such fault.
type Config struct {
	Seed       uint64
	Candidates int
	Duration   time.Duration // virtual time simulated
	Timing     elector.Timing

	// MaxDriftRate is the largest clock rate error of a process against the
	// store, as a fraction (0.01 = 1%). Safety holds while
	// MaxDriftRate <= DriftBound/LeaseDuration; Default uses exactly that.
	MaxDriftRate float64
	// DropRate is the chance that a request, and independently its answer,
	// is lost; DelayRate the chance each is delayed by up to MaxDelay.
	DropRate, DelayRate float64
	MaxDelay            time.Duration
	// HangRate is the chance that a request, and independently its answer,
	// hangs (a half-open connection: no answer, no error) for up to MaxHang;
	// half the clients give up when the call's context ends, the others
	// (go-redis without ContextTimeoutEnabled) wait out the hang.
	HangRate float64
	MaxHang  time.Duration
	// Pauses per process, each up to MaxPause long.
	Pauses   int
	MaxPause time.Duration
	// Partitions per process, each up to MaxPartition long.
	Partitions   int
	MaxPartition time.Duration
	// CrashRate is the chance that a process crashes once in the run; it
	// restarts after up to MaxDowntime, half the time under the same
	// identity (an instant reclaim).
	CrashRate   float64
	MaxDowntime time.Duration
	// Resigns per process, at random times.
	Resigns int
	// StoreRestarts are durable-store restarts (leases and token counters
	// survive, watches break), each with up to MaxDowntime of
	// unavailability.
	StoreRestarts int
	// LeaseLosses are restarts of a volatile store (Redis without
	// persistence):
	// live terms vanish, so timing alone can no longer keep leaders apart
	// and only fencing does. Token counters survive.
	LeaseLosses int

	// NoWatch hides the store's Watcher, so standbys only poll.
	NoWatch bool

	// Unsafe selects a deliberately broken deadline for checker tests.
	Unsafe simhooks.Unsafe
}

// Default is a hostile configuration under which the elector must stay safe.
// Seeds vary the number of candidates (2 to 6) and alternate between the
// default timing and a tight one with small margins (a 2 s lease, as the
// fault tests against real servers use); faults scale with the lease.
func Default(seed uint64) Config {
	tm := elector.DefaultTiming()
	if seed%2 == 0 {
		tm = elector.Timing{
			LeaseDuration: 2 * time.Second,
			RenewInterval: 400 * time.Millisecond,
			RetryInterval: 250 * time.Millisecond,
			DriftBound:    40 * time.Millisecond,
			StopBudget:    100 * time.Millisecond,
		}
	}
	// scale turns a duration meant for a 15 s lease into one for tm.
	scale := func(d time.Duration) time.Duration {
		return time.Duration(float64(d) * float64(tm.LeaseDuration) / float64(15*time.Second))
	}
	return Config{
		Seed:          seed,
		Candidates:    2 + int(seed%5),
		Duration:      scale(3 * time.Minute),
		Timing:        tm,
		MaxDriftRate:  float64(tm.DriftBound) / float64(tm.LeaseDuration),
		DropRate:      0.1,
		DelayRate:     0.3,
		MaxDelay:      scale(2 * time.Second),
		HangRate:      0.03,
		MaxHang:       scale(30 * time.Second),
		Pauses:        2,
		MaxPause:      scale(20 * time.Second),
		Partitions:    1,
		MaxPartition:  scale(25 * time.Second),
		CrashRate:     0.5,
		MaxDowntime:   scale(20 * time.Second),
		Resigns:       2,
		StoreRestarts: 1,
	}
}

// Term is one run of a leader's work, in global time.
type Term struct {
	Token    uint64
	Process  int // process slot
	Life     int // incarnation of the process (restarts after crashes)
	Identity string
	Start    time.Time
	End      time.Time
	// Paused is how much of [Start, End) the process spent paused: the only
	// way a correct candidate's work can outlive its lease.
	Paused time.Duration
	// Requested is when the Acquire that granted the term was sent, and
	// PausedSinceRequest how much of [Requested, End) the process was paused.
	Requested          time.Time
	PausedSinceRequest time.Duration
	// Crashed is true when the term ended with a crash of its process.
	Crashed bool
	// Cause is context.Cause of the work's context when it ended, and
	// Cancelled when the work saw it end (zero after a crash).
	Cause     error
	Cancelled time.Time
	// Born is when the holder's process (this life of it) started.
	Born time.Time
}

// Life is one incarnation of a process, from start to crash (or the end of
// the run).
type Life struct {
	Process, Life int
	Born, Died    time.Time
}

// Write is one write a leader's work attempted on the fenced resource.
type Write struct {
	Token    uint64
	At       time.Time
	Accepted bool
}

// RenewCall is one Renew request a process sent, in global time.
type RenewCall struct {
	Token    uint64
	Sent     time.Time
	Answered time.Time
	OK       bool // the candidate was told it succeeded
}

// Report is the outcome of one run.
type Report struct {
	Config     Config
	Start      time.Time // global time the run began
	Terms      []Term
	Grants     []elector.Term // every grant the store made, in order
	Writes     []Write
	Renews     []RenewCall
	Events     map[elector.EventKind]int
	Crashes    int
	Hangs      int // store calls that hung (request or answer)
	Lives      []Life
	Violations []string
}

func (r *Report) String() string {
	return fmt.Sprintf("seed %d: %d grants, %d terms, %d writes, %d crashes, %d hung calls, events %v, %d violations",
		r.Config.Seed, len(r.Grants), len(r.Terms), len(r.Writes), r.Crashes, r.Hangs, r.Events, len(r.Violations))
}

type simulation struct {
	cfg   Config
	store *memserver.Server
	start time.Time
	fence fencedResource
	works sync.WaitGroup // leaders' work functions still running
	// calls counts store calls still running: a hang may outlive its caller,
	// and an elector's renew goroutine may enter the store after Run of its
	// Candidate returned.
	calls    sync.WaitGroup
	inflight atomic.Int64

	mu     sync.Mutex
	terms  []*Term
	grants []elector.Term
	asked  map[uint64]time.Time // token -> when its Acquire was sent
	renews []RenewCall
	events map[elector.EventKind]int
	crash  int
	hangs  int
	lives  []Life
}

func (s *simulation) granted(t elector.Term, sent time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.grants = append(s.grants, t)
	s.asked[t.Token] = sent
}

// renewSent logs a renew request as it is sent (a crash may keep it from
// ever being answered) and returns its index for renewAnswered.
func (s *simulation) renewSent(token uint64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.renews = append(s.renews, RenewCall{Token: token, Sent: time.Now()})
	return len(s.renews) - 1
}

func (s *simulation) renewAnswered(i int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.renews[i].Answered, s.renews[i].OK = time.Now(), ok
}

func (s *simulation) hung() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hangs++
}

func (s *simulation) event(e elector.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events[e.Kind]++
}

// callStarted counts a store call in flight; the returned func ends it.
func (s *simulation) callStarted() func() {
	s.calls.Add(1)
	s.inflight.Add(1)
	return func() { s.inflight.Add(-1); s.calls.Done() }
}

// settle returns when no goroutine of the run can still record anything:
// every other goroutine of the bubble is durably blocked and no store call is
// in flight. A goroutine the elector started but the scheduler has not run
// yet (a renew attempt sent as its Candidate stopped) is not blocked, so
// synctest.Wait lets it reach the store first; reading the report before it
// did made seeds replay differently.
func (s *simulation) settle() {
	for {
		synctest.Wait()
		if s.inflight.Load() == 0 {
			return
		}
		s.calls.Wait()
	}
}

// proc is one incarnation of a process.
type proc struct {
	sim      *simulation
	slot     int
	life     int
	identity string
	clock    *driftClock
	pauses   pauseSchedule
	parts    []window
	dead     atomic.Bool
	seed     uint64 // mixed into every random decision of this process
}

func (p *proc) partitioned(t time.Time) bool {
	for _, w := range p.parts {
		if w.contains(t) {
			return true
		}
	}
	return false
}

// Run simulates cfg inside the current synctest bubble and checks the result.
func Run(cfg Config) *Report {
	s := &simulation{cfg: cfg, store: memserver.New(nil), start: time.Now(), events: map[elector.EventKind]int{}, asked: map[uint64]time.Time{}}
	root := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	end := s.start.Add(cfg.Duration)
	ctx, cancel := context.WithDeadline(context.Background(), end)
	defer cancel()

	var wg sync.WaitGroup
	for slot := 0; slot < cfg.Candidates; slot++ {
		seed := root.Uint64()
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.runSlot(ctx, slot, seed)
		}()
	}
	for i := 0; i < cfg.StoreRestarts; i++ {
		at := randDur(root, cfg.Duration)
		down := randDur(root, cfg.MaxDowntime)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if sleepCtx(ctx, at) != nil {
				return
			}
			s.store.Restart()
			s.store.SetDown(true)
			_ = sleepCtx(ctx, down)
			s.store.SetDown(false)
		}()
	}
	for i := 0; i < cfg.LeaseLosses; i++ {
		at := randDur(root, cfg.Duration)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if sleepCtx(ctx, at) == nil {
				s.store.LoseLeases()
			}
		}()
	}
	wg.Wait()
	s.works.Wait() // work abandoned by a shutdown that overran its budget
	s.settle()

	rep := &Report{Config: cfg, Start: s.start, Grants: s.grants, Events: s.events, Crashes: s.crash, Hangs: s.hangs, Lives: s.lives, Writes: s.fence.writes, Renews: s.renews}
	for _, t := range s.terms {
		if t.End.IsZero() { // work still running when the run ended
			t.End = time.Now()
		}
		rep.Terms = append(rep.Terms, *t)
	}
	rep.Violations = check(rep)
	return rep
}

func randDur(r *rand.Rand, max time.Duration) time.Duration {
	if max <= 0 {
		return 0
	}
	return time.Duration(r.Int64N(int64(max)))
}

// windows draws n windows of up to max length within the run.
func windows(r *rand.Rand, start time.Time, run time.Duration, n int, max time.Duration) []window {
	var ws []window
	for i := 0; i < n; i++ {
		from := start.Add(randDur(r, run))
		ws = append(ws, window{from, from.Add(randDur(r, max))})
	}
	return ws
}

// runSlot runs the incarnations of one process slot until ctx ends.
func (s *simulation) runSlot(ctx context.Context, slot int, seed uint64) {
	r := rand.New(rand.NewPCG(seed, uint64(slot)))
	cfg := &s.cfg
	identity := fmt.Sprintf("p%d", slot)
	for life := 0; ctx.Err() == nil; life++ {
		born := time.Now()
		rest := s.start.Add(cfg.Duration).Sub(born)
		rate := 1 + cfg.MaxDriftRate*(2*r.Float64()-1)
		if r.IntN(4) == 0 { // the extremes are the interesting cases
			rate = 1 - cfg.MaxDriftRate
		}
		pauses := pauseSchedule(windows(r, born, rest, cfg.Pauses, cfg.MaxPause))
		p := &proc{
			sim: s, slot: slot, life: life, identity: identity,
			clock:  &driftClock{born: born, rate: rate, pauses: pauses},
			pauses: pauses,
			parts:  windows(r, born, rest, cfg.Partitions, cfg.MaxPartition),
			seed:   r.Uint64(),
		}
		crashAt := time.Duration(-1)
		if r.Float64() < cfg.CrashRate {
			crashAt = randDur(r, rest)
		}
		var resigns []time.Duration
		for i := 0; i < cfg.Resigns; i++ {
			resigns = append(resigns, randDur(r, rest))
		}
		downtime := randDur(r, cfg.MaxDowntime)
		if r.IntN(2) == 0 {
			identity = fmt.Sprintf("p%d.%d", slot, life+1) // next life gets a fresh identity
		}
		crashed := p.live(ctx, crashAt, resigns, r.Uint64())
		s.mu.Lock()
		s.lives = append(s.lives, Life{Process: slot, Life: life, Born: born, Died: time.Now()})
		if crashed {
			s.crash++
		}
		s.mu.Unlock()
		if !crashed {
			return
		}
		if sleepCtx(ctx, downtime) != nil {
			return
		}
	}
}

// live runs one incarnation; it reports whether the process crashed.
func (p *proc) live(ctx context.Context, crashAt time.Duration, resigns []time.Duration, seed uint64) bool {
	cfg := &p.sim.cfg
	var store elector.Store = &faultyStore{p: p, s: p.sim.store}
	if cfg.NoWatch {
		store = struct{ elector.Store }{store} // hides Watch
	}
	c, err := elector.New(store, "sim",
		elector.WithIdentity(p.identity),
		elector.WithTiming(cfg.Timing),
		elector.WithClock(p.clock),
		elector.WithEvents(p.sim.event),
		simhooks.WithSeed(seed).(elector.Option),
		simhooks.WithUnsafe(cfg.Unsafe).(elector.Option),
	)
	if err != nil {
		panic(err) // the configuration is the test's
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.Run(runCtx, p.work)
	}()
	for _, at := range resigns {
		time.AfterFunc(at, func() {
			if !p.dead.Load() {
				_ = c.Resign(runCtx)
			}
		})
	}
	if crashAt < 0 {
		<-done
		return false
	}
	crash := time.NewTimer(crashAt)
	defer crash.Stop()
	select {
	case <-done:
		return false
	case <-crash.C:
		// A crash: everything stops at once, nothing is released.
		p.dead.Store(true)
		p.sim.endTerms(p, time.Now())
		stop()
		<-done
		return true
	}
}
