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
	"syscall"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
)

// The leader-process scenarios re-execute the test binary, running only
// the store package's ChildTest, with these variables set. The child
// reports on stdout, one line per fact, prefixed with childTag.
const (
	childEnv     = "GATESIFT_FAULT_CHILD"
	childAddrEnv = "GATESIFT_FAULT_ADDR"
	childNameEnv = "GATESIFT_FAULT_LEASE"
	childTag     = "faultchild:"
)

// Child is the body of the store package's ChildTest. In a normal test run
// it skips; in a child process it runs one candidate until stdin closes (the
// parent is gone) or a minute passes. While it leads it writes at the
// resource every 20 ms. When its leader context ends it makes one more
// write with its now stale token (a write that was already under way when
// the process was frozen), which the fence must reject.
func Child(t *testing.T, env Env) {
	if os.Getenv(childEnv) != "1" {
		t.Skip("runs only as the child process of the LeaderKill9 and LeaderPauseResume fault tests")
	}
	say := func(format string, args ...any) {
		fmt.Fprintf(os.Stdout, childTag+format+"\n", args...)
	}
	s := env.Open(t, os.Getenv(childAddrEnv))
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
		say("lead %d", l.Token())
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				say("late %d %s", l.Token(), write(l.Term()))
				return nil
			case <-tick.C:
				say("write %d %s", l.Token(), write(l.Term()))
			}
		}
	})
}

// child is a candidate process started by a scenario.
type child struct {
	cmd   *exec.Cmd
	lines chan string
}

func startChild(t *testing.T, env Env, addr, name string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^"+env.ChildTest+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=1", childAddrEnv+"="+addr, childNameEnv+"="+name)
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
	c := &child{cmd: cmd, lines: make(chan string, 10000)}
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), childTag); ok {
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

func parseToken(t *testing.T, f []string) uint64 {
	t.Helper()
	tok, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		t.Fatalf("child line %v: %v", f, err)
	}
	return tok
}

// testLeaderProcess: a leader in another process is killed with SIGKILL, or
// frozen with SIGSTOP past its lease and then resumed. The standby in this
// process takes over with a larger token. A resumed leader's write with
// its stale token is rejected by the fence at the resource, and the
// resource never applies an older term's write after a newer one's.
func testLeaderProcess(t *testing.T, env Env, pause bool) {
	srv := env.Server(t, false)
	g := newGroup(t)
	ch := startChild(t, env, srv.Addr(), g.name)
	old := parseToken(t, ch.wait(t, "lead"))
	if f := ch.wait(t, "write"); f[2] != "ok" {
		t.Fatalf("child leader's first write: %v", f)
	}
	g.start("b", env.Open(t, srv.Addr()), env)

	sig := syscall.SIGKILL
	if pause {
		sig = syscall.SIGSTOP
	}
	stopped := time.Now()
	if err := ch.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	next := g.wait("the standby to take over", leads)
	if next.token <= old {
		t.Fatalf("standby's token %d; want > %d, the frozen or killed leader's", next.token, old)
	}
	t.Logf("standby took over %v after the leader was signalled %v", next.at.Sub(stopped).Round(time.Millisecond), sig)
	g.wait("a write by the new leader", func(e event) bool { return e.kind == "write" && e.token == next.token && e.cause == nil })
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
	checkWritten(t, env, env.Open(t, srv.Addr()), g.name, old, next.token)
}
