package faulttest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
)

// The leader-process scenarios re-execute the test binary, running only
// the store package's ChildTest, with these variables set. The child
// reports on stdout, one line per fact, prefixed with childTag.
const (
	childEnv       = "GATESIFT_FAULT_CHILD"
	childTargetEnv = "GATESIFT_FAULT_TARGET" // what Env.Open is given
	childNameEnv   = "GATESIFT_FAULT_LEASE"
	childTag       = "faultchild:"
)

// Child is the body of the store package's ChildTest. In a normal test run
// it skips; in a child process it runs one candidate until stdin closes (the
// parent is gone) or a minute passes. While it leads it writes at the
// resource every 20 ms and reports each result with its lease's deadline.
// When its leader context ends it makes one more write with its now stale
// token (a write that was already under way when the process was frozen),
// which the fence must reject.
func Child(t *testing.T, env Env) {
	if os.Getenv(childEnv) != "1" {
		t.Skip("runs only as the child process of the LeaderKill9 and LeaderPauseResume fault tests")
	}
	say := func(format string, args ...any) {
		fmt.Fprintf(os.Stdout, childTag+format+"\n", args...)
	}
	s := env.Open(t, os.Getenv(childTargetEnv))
	c, err := elector.New(s, os.Getenv(childNameEnv), elector.WithIdentity("child"), elector.WithTiming(timing))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go func() {
		io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	write := func(term elector.Term) string {
		wctx, wcancel := context.WithTimeout(context.Background(), time.Second)
		defer wcancel()
		switch err := env.Write(wctx, s, term); {
		case err == nil:
			return "ok"
		case errors.Is(err, elector.ErrLost):
			return "fenced"
		default:
			return "error"
		}
	}
	c.Run(ctx, func(ctx context.Context, l elector.Lease) error {
		say("lead %d %d", l.Token(), l.Deadline().UnixNano())
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				say("late %d %s", l.Token(), write(l.Term()))
				return nil
			case <-tick.C:
				// With the deadline as it stands after the write, so the
				// parent knows until when this term was surely live.
				res := write(l.Term())
				say("write %d %s %d", l.Token(), res, l.Deadline().UnixNano())
			}
		}
	})
}

// child is a candidate process started by a scenario.
type child struct {
	cmd   *exec.Cmd
	lines chan string
	done  chan struct{} // closed when its stdout has ended

	mu       sync.Mutex
	deadline time.Time // the latest lease deadline it reported
}

func startChild(t *testing.T, env Env, target, name string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^"+env.ChildTest+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=1", childTargetEnv+"="+target, childNameEnv+"="+name)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, lines: make(chan string, 10000), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		defer close(c.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), childTag); ok {
				c.noteDeadline(strings.Fields(line))
				c.lines <- line
			}
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Signal(syscall.SIGCONT)
		cmd.Process.Kill()
		cmd.Wait()
	})
	return c
}

// wait returns the fields of the first line whose first field is verb,
// failing the test after scenarioLimit or when the child exits.
func (c *child) wait(t *testing.T, verb string) []string {
	t.Helper()
	limit := time.After(scenarioLimit)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				t.Fatalf("child exited before reporting %q", verb)
			}
			if f := strings.Fields(line); len(f) > 0 && f[0] == verb {
				return f
			}
		case <-limit:
			t.Fatalf("child reported no %q within %v", verb, scenarioLimit)
		}
	}
}

// noteDeadline keeps the deadline a "lead" or "write" line reports.
func (c *child) noteDeadline(f []string) {
	var i int
	switch {
	case len(f) == 3 && f[0] == "lead":
		i = 2
	case len(f) == 4 && f[0] == "write":
		i = 3
	default:
		return
	}
	ns, err := strconv.ParseInt(f[i], 10, 64)
	if err != nil {
		return
	}
	c.mu.Lock()
	if d := time.Unix(0, ns); d.After(c.deadline) {
		c.deadline = d
	}
	c.mu.Unlock()
}

// lastDeadline is the latest deadline the child reported: its term was
// live by its own clock until then.
func (c *child) lastDeadline() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deadline
}

func parseToken(t *testing.T, f []string) uint64 {
	t.Helper()
	tok, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		t.Fatalf("child line %v: %v", f, err)
	}
	return tok
}

// testLeaderProcess: a leader in another process is killed with SIGKILL, or
// frozen with SIGSTOP past its lease and then resumed. While it leads the
// standby in this process stands by; after the signal the standby takes
// over with a larger token, and only once the leader's lease ran out. A
// resumed leader's write with its stale token is rejected by the fence at
// the resource, and the resource never applies an older term's write after
// a newer one's.
func testLeaderProcess(t *testing.T, env Env, pause bool) {
	srv := env.Server(t, false)
	g := NewGroup(t, env)
	ch := startChild(t, env, target(env, srv, srv.Addr()), g.name)
	old := parseToken(t, ch.wait(t, "lead"))
	if f := ch.wait(t, "write"); f[2] != "ok" {
		t.Fatalf("child leader's first write: %v", f)
	}
	g.Start("b", open(t, env, srv, srv.Addr()))
	// A few of the child's renews and the standby's attempts.
	time.Sleep(2 * timing.RenewInterval)
	if who, tok, ok := g.Leader(); ok {
		t.Fatalf("%s leads (token %d) while the child leader (token %d) is alive", who, tok, old)
	}

	sig := syscall.SIGKILL
	if pause {
		sig = syscall.SIGSTOP
	}
	stopped := time.Now()
	if err := ch.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	next := g.Wait("the standby to take over", Leads)
	if next.Token <= old {
		t.Fatalf("standby's token %d; want > %d, the frozen or killed leader's", next.Token, old)
	}
	if !pause {
		// Every line the killed child wrote has been read.
		select {
		case <-ch.done:
		case <-time.After(scenarioLimit):
			t.Fatal("the killed child's output did not end")
		}
	}
	// The store must not grant the term before the old leader's lease ran
	// out: a full lease after its last renew was sent (its reported
	// deadline minus the safe window), less the clock drift the timing
	// allows the store. The deadline, when the old leader's own context
	// ends, comes before that.
	if ch.lastDeadline().IsZero() {
		t.Fatal("the child reported no lease deadline")
	}
	lastSent := ch.lastDeadline().Add(-timing.SafeWindow())
	if after := next.At.Sub(lastSent); after < timing.LeaseDuration-timing.DriftBound {
		t.Fatalf("standby led %v after the signalled leader (token %d) last renewed; want at least the lease %v less the drift bound %v: two leaders at once",
			after.Round(time.Millisecond), old, timing.LeaseDuration, timing.DriftBound)
	}
	t.Logf("standby took over %v after the leader was signalled %v, %v after its last renew was sent",
		next.At.Sub(stopped).Round(time.Millisecond), sig, next.At.Sub(lastSent).Round(time.Millisecond))
	g.Wait("a write by the new leader", wroteOK(next.Token))
	checkRead(t, open(t, env, srv, srv.Addr()), g.name, "b", next.Token)
	if pause {
		if err := ch.cmd.Process.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		f := ch.wait(t, "late")
		if parseToken(t, f) != old || f[2] != "fenced" {
			t.Fatalf("resumed leader's write with stale token %d: %v; want it fenced", old, f)
		}
		// Give the resumed child time to do anything else it would do;
		// the order check below catches a stale write that landed.
		time.Sleep(4 * timing.RetryInterval)
	}
	checkWritten(t, env, open(t, env, srv, srv.Addr()), g.name, old, next.Token)
}
