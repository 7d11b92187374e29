package kubestore

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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The process fault tests run a leader in a separate process, the test
// binary re-executed with childEnv set to the candidate's identity, so it
// can be killed with SIGKILL or frozen with SIGSTOP like a real service.
const (
	childEnv     = "GATESIFT_KUBESTORE_CHILD"
	hostEnv      = "GATESIFT_KUBESTORE_HOST"
	caEnv        = "GATESIFT_KUBESTORE_CA"
	tokenEnv     = "GATESIFT_KUBESTORE_TOKEN"
	leaseEnv     = "GATESIFT_KUBESTORE_LEASE"
	childMaxLife = 2 * time.Minute
)

// childMain competes for the lease and, while leading, writes the resource
// every 50 ms through fencedWrite, reporting each outcome on stdout. Like a
// worker that checks for cancellation only between operations, it makes
// one more write after it notices its term ended: that is the write the
// fence must stop if a successor has written.
func childMain() int {
	id, name := os.Getenv(childEnv), os.Getenv(leaseEnv)
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(os.Stdout, format+"\n", args...)
	}
	c, err := newChildClient()
	if err != nil {
		say("fatal %v", err)
		return 1
	}
	s := New(c, "default")
	leases := c.Leases("default")
	cand, err := elector.New(s, name, elector.WithIdentity(id), elector.WithTiming(faultTiming()))
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
			rv, err := fencedWrite(wctx, leases, name+"-resource", l.Token(), id)
			cancel()
			switch {
			case err == nil:
				say("wrote %d %s", l.Token(), rv)
			case errors.Is(err, elector.ErrStaleToken):
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

func startChild(t *testing.T, k *testserver.KubeAPIServer, name, id string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ch := &child{lines: make(chan []string, 10000)}
	ch.cmd = exec.Command(exe, "-test.run=^$")
	ch.cmd.Env = append(os.Environ(), childEnv+"="+id, hostEnv+"="+k.Host(), caEnv+"="+string(k.CAData()),
		tokenEnv+"="+k.AdminToken(), leaseEnv+"="+name)
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

func first(f []string, _ [][]string) []string { return f }

// TestLeaderProcessKilled kills a leading process with SIGKILL: it cannot
// release, so the standby takes over once its own observation says the
// Lease expired, with a higher token.
func TestLeaderProcessKilled(t *testing.T) {
	k := testserver.KubeAPIServerShared(t)
	name := "killed-" + strings.ReplaceAll(testserver.UniqueName("job"), "_", "-")
	ctx := testCtx(t, 60*time.Second)
	a := startChild(t, k, name, "a")
	ta := field(t, first(a.expect(t, ctx, "acquired")), 1)
	a.expect(t, ctx, "wrote")

	s := newStore(t, k)
	b := runCandidate(t, s, name, "b")
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
	if after := bt.start.Sub(killed); after < faultTiming().LeaseDuration-faultTiming().RenewInterval {
		t.Fatalf("b took over %v after the kill; a's lease (%v, renewed every %v) cannot have expired yet", after, faultTiming().LeaseDuration, faultTiming().RenewInterval)
	}
	rec, err := s.Read(ctx, name)
	if err != nil || !rec.Held || rec.Term != bt.lease.Term() {
		t.Fatalf("read = %+v, %v; want b's term %+v", rec, err, bt.lease.Term())
	}
	t.Logf("killed leader token %d; b leads with token %d %v after the kill", ta, bt.lease.Token(), bt.start.Sub(killed).Round(time.Millisecond))
}

// TestPausedLeaderIsFenced freezes a leading process with SIGSTOP until
// the standby has taken over and written the resource, then resumes it.
// The resumed process still writes once more after noticing its term
// ended; the resource refuses every such write because it has seen the
// newer token, and the resource ends with the new leader's write.
func TestPausedLeaderIsFenced(t *testing.T) {
	k := testserver.KubeAPIServerShared(t)
	name := "paused-" + strings.ReplaceAll(testserver.UniqueName("job"), "_", "-")
	ctx := testCtx(t, 60*time.Second)
	a := startChild(t, k, name, "a")
	ta := field(t, first(a.expect(t, ctx, "acquired")), 1)
	a.expect(t, ctx, "wrote")

	c := newClient(t, k, k.AdminToken())
	s := New(c, "default")
	b := runCandidate(t, s, name, "b")
	time.Sleep(500 * time.Millisecond)

	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	b.wait(t, ctx, "b to take over", func(all []*leaderTerm) bool { return len(all) == 1 })
	bt := b.snapshot()[0]
	if bt.lease.Token() <= ta {
		t.Fatalf("b's token %d not above the paused leader's %d", bt.lease.Token(), ta)
	}
	leases := c.Leases("default")
	bRV, err := fencedWrite(ctx, leases, name+"-resource", bt.lease.Token(), "b")
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
			// resourceVersion is opaque to clients, but an etcd-backed
			// kube-apiserver uses the etcd revision, which orders writes;
			// the lines also hold a's writes from before the pause.
			if rv := field(t, f, 2); rv >= field(t, []string{bRV}, 0) {
				t.Errorf("paused leader (token %d) wrote at resourceVersion %d, after b (token %d) wrote at %s", ta, rv, bt.lease.Token(), bRV)
			}
		case "rejected":
			rejected++
		}
	}
	if rejected == 0 {
		t.Fatalf("the resumed leader made no write that the fence rejected; its lines: %v", lines)
	}
	got, err := leases.Get(ctx, name+"-resource", metav1.GetOptions{})
	if err != nil || got.ResourceVersion != bRV || got.Annotations[resourceWriter] != fmt.Sprintf("b %d", bt.lease.Token()) {
		t.Fatalf("resource = %+v, %v; want b's write at resourceVersion %s", got, err, bRV)
	}
	t.Logf("paused leader token %d: %d stale writes rejected after resume; b's token %d", ta, rejected, bt.lease.Token())
}
