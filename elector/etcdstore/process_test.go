package etcdstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/internal/testserver"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// The process fault tests run a leader in a separate process, the test
// binary re-executed with childEnv set to the candidate's identity, so it
// can be killed with SIGKILL or frozen with SIGSTOP like a real service.
const (
	childEnv     = "GATESIFT_ETCDSTORE_CHILD"
	endpointEnv  = "GATESIFT_ETCDSTORE_ENDPOINT"
	resourceKey  = "resource"
	childMaxLife = 2 * time.Minute
)

// childMain competes for "job" and, while leading, writes resourceKey every
// 50 ms through PutFenced, reporting each outcome on stdout. Like a worker
// that checks for cancellation only between operations, it makes one more
// write after it notices its term ended: that is the write a fence must
// stop.
func childMain() int {
	id, endpoint := os.Getenv(childEnv), os.Getenv(endpointEnv)
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(os.Stdout, format+"\n", args...)
	}
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		say("fatal %v", err)
		return 1
	}
	defer c.Close()
	s := New(c)
	cand, err := elector.New(s, "job", elector.WithIdentity(id), elector.WithTiming(faultTiming()))
	if err != nil {
		say("fatal %v", err)
		return 1
	}
	work := func(ctx context.Context, l elector.Lease) error {
		say("acquired %d", l.Token())
		for {
			ended := ctx.Err() != nil
			time.Sleep(50 * time.Millisecond)
			wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			rev, err := s.PutFenced(wctx, l.Term(), resourceKey, fmt.Sprintf("%s %d", id, l.Token()))
			cancel()
			switch {
			case err == nil:
				say("wrote %d %d", l.Token(), rev)
			case errors.Is(err, elector.ErrLost):
				say("rejected %d", l.Token())
			default:
				say("error %d %v", l.Token(), err)
			}
			if ended {
				say("ended %d", l.Token())
				return nil
			}
		}
	}
	// The parent kills us; the limit only guards against a leaked child.
	ctx, cancel := context.WithTimeout(context.Background(), childMaxLife)
	defer cancel()
	_ = cand.Run(ctx, work)
	return 0
}

// child is a candidate process started by a test.
type child struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	lines  chan []string // stdout, split into fields
	mu     sync.Mutex
	seen   []string
}

func startChild(t *testing.T, endpoint, id string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ch := &child{lines: make(chan []string, 10000)}
	ch.cmd = exec.Command(exe, "-test.run=^$")
	ch.cmd.Env = append(os.Environ(), childEnv+"="+id, endpointEnv+"="+endpoint)
	ch.cmd.Stderr = &ch.stderr
	// The child dies with the test binary even if cleanup never runs.
	ch.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := ch.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			ch.mu.Lock()
			ch.seen = append(ch.seen, sc.Text())
			ch.mu.Unlock()
			ch.lines <- strings.Fields(sc.Text())
		}
	}()
	t.Cleanup(func() {
		_ = ch.cmd.Process.Signal(syscall.SIGCONT)
		_ = ch.cmd.Process.Kill()
		<-done
		_ = ch.cmd.Wait()
		if t.Failed() {
			ch.mu.Lock()
			t.Logf("child %s stdout:\n%s\nstderr:\n%s", id, strings.Join(ch.seen, "\n"), ch.stderr.String())
			ch.mu.Unlock()
		}
	})
	return ch
}

// expect returns the lines up to and including the first whose first
// field is kind, failing the test when ctx ends first.
func (ch *child) expect(t *testing.T, ctx context.Context, kind string) (last []string, all [][]string) {
	t.Helper()
	for {
		select {
		case f := <-ch.lines:
			all = append(all, f)
			if len(f) > 0 && f[0] == "fatal" {
				t.Fatalf("child failed: %v", f)
			}
			if len(f) > 0 && f[0] == kind {
				return f, all
			}
		case <-ctx.Done():
			t.Fatalf("child never reported %q: %v", kind, ctx.Err())
		}
	}
}

func field(t *testing.T, f []string, i int) uint64 {
	t.Helper()
	if len(f) <= i {
		t.Fatalf("short line %v", f)
	}
	n, err := strconv.ParseUint(f[i], 10, 64)
	if err != nil {
		t.Fatalf("line %v: %v", f, err)
	}
	return n
}

// TestLeaderProcessKilled kills a leading process with SIGKILL: it cannot
// release, so the standby takes over once etcd expires the lease, with a
// higher token.
func TestLeaderProcessKilled(t *testing.T) {
	e := testserver.NewEtcd(t)
	ctx := testCtx(t, 60*time.Second)
	a := startChild(t, e.Endpoint(), "a")
	ta := field(t, first(a.expect(t, ctx, "acquired")), 1)
	a.expect(t, ctx, "wrote")

	s := New(newClient(t, e.Endpoint()))
	b := runCandidate(t, s, "job", "b")
	time.Sleep(500 * time.Millisecond)
	if got := b.snapshot(); len(got) != 0 {
		t.Fatalf("b leads while a is alive: %+v", got)
	}
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	b.wait(t, ctx, "b to take over", func(all []*leaderTerm) bool { return len(all) == 1 })
	bt := b.snapshot()[0]
	if bt.lease.Token() <= ta {
		t.Fatalf("b's token %d not above the killed leader's %d", bt.lease.Token(), ta)
	}
	rec, err := s.Read(ctx, "job")
	if err != nil || !rec.Held || rec.Term != bt.lease.Term() {
		t.Fatalf("read = %+v, %v; want b's term %+v", rec, err, bt.lease.Term())
	}
	t.Logf("killed leader token %d; b leads with token %d %v after the kill", ta, bt.lease.Token(), bt.start.Sub(killed).Round(time.Millisecond))
}

func first(f []string, _ [][]string) []string { return f }

// TestPausedLeaderIsFenced freezes a leading process with SIGSTOP until
// the standby has taken over and written, then resumes it. The resumed
// process still believes, for a moment, that it leads and writes; the fence
// (CreateRevision of the lease key == its token) rejects every such write,
// and none of its writes lands after the new leader's term began.
func TestPausedLeaderIsFenced(t *testing.T) {
	e := testserver.NewEtcd(t)
	ctx := testCtx(t, 60*time.Second)
	a := startChild(t, e.Endpoint(), "a")
	ta := field(t, first(a.expect(t, ctx, "acquired")), 1)
	a.expect(t, ctx, "wrote")

	direct := newClient(t, e.Endpoint())
	s := New(direct)
	b := runCandidate(t, s, "job", "b")
	time.Sleep(500 * time.Millisecond)

	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	b.wait(t, ctx, "b to take over", func(all []*leaderTerm) bool { return len(all) == 1 })
	bt := b.snapshot()[0]
	if bt.lease.Token() <= ta {
		t.Fatalf("b's token %d not above the paused leader's %d", bt.lease.Token(), ta)
	}
	bRev, err := s.PutFenced(ctx, bt.lease.Term(), resourceKey, "b")
	if err != nil {
		t.Fatalf("new leader's fenced write: %v", err)
	}

	if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	_, lines := a.expect(t, ctx, "ended")
	rejected := 0
	for _, f := range lines {
		switch f[0] {
		case "wrote":
			if rev := field(t, f, 2); int64(rev) >= int64(bt.lease.Token()) {
				t.Errorf("paused leader (token %d) wrote at revision %d, after b's term began at %d", ta, rev, bt.lease.Token())
			}
		case "rejected":
			rejected++
		}
	}
	if rejected == 0 {
		t.Fatalf("the resumed leader made no write that the fence rejected; its lines: %v", lines)
	}
	g, err := direct.Get(ctx, resourceKey)
	if err != nil || len(g.Kvs) != 1 || string(g.Kvs[0].Value) != "b" || g.Kvs[0].ModRevision != bRev {
		t.Fatalf("resource = %+v, %v; want b's write at revision %d", g, err, bRev)
	}
	t.Logf("paused leader token %d: %d stale writes rejected after resume; b's token %d", ta, rejected, bt.lease.Token())
}
