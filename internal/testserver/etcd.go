package testserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Etcd is a real single-member etcd server started by a test on loopback
// ports in a temporary directory. The test's cleanup kills it, so it never
// outlives the test even when the test fails.
type Etcd struct {
	// Endpoint is the client address, host:port, for clientv3.Config.Endpoints.
	Endpoint string
	// DataDir is kept across Restart so revisions and leases survive.
	DataDir string

	bin        string
	clientPort int
	peerPort   int
	logPath    string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
}

// etcdPackage is the Debian package that ships the server binary; skip and
// failure messages name it so whoever runs the tests knows what to install.
const etcdPackage = "etcd-server"

// StartEtcd starts etcd and waits until it answers /health. When no etcd
// binary is installed the test is skipped, or fails when
// GATESIFT_REQUIRE_SERVICES=1, so CI cannot pass by silently skipping.
func StartEtcd(t testing.TB) *Etcd {
	t.Helper()
	bin := etcdBinary()
	if bin == "" {
		msg := fmt.Sprintf("etcd binary not found in PATH or /usr/bin; install the Debian package %s", etcdPackage)
		if os.Getenv("GATESIFT_REQUIRE_SERVICES") == "1" {
			t.Fatal(msg + " (GATESIFT_REQUIRE_SERVICES=1)")
		}
		t.Skip(msg)
	}
	dir := t.TempDir()
	e := &Etcd{
		bin:     bin,
		DataDir: filepath.Join(dir, "data"),
		logPath: filepath.Join(dir, "etcd.log"),
	}
	t.Cleanup(func() {
		e.Kill()
		if t.Failed() {
			t.Logf("etcd log tail:\n%s", e.logTail(4000))
		}
	})
	// A port picked free can be taken by another process before etcd binds
	// it (other tests run in parallel on this machine), so try a few pairs.
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		e.clientPort, e.peerPort = etcdFreePort(t), etcdFreePort(t)
		e.Endpoint = fmt.Sprintf("127.0.0.1:%d", e.clientPort)
		if err = e.start(); err == nil {
			return e
		}
		e.Kill()
		os.RemoveAll(e.DataDir)
	}
	t.Fatalf("start etcd: %v\n%s", err, e.logTail(4000))
	return nil
}

// Restart stops the server gracefully and starts it again on the same ports
// with the same data directory.
func (e *Etcd) Restart(t testing.TB) {
	t.Helper()
	e.Stop()
	if err := e.start(); err != nil {
		t.Fatalf("restart etcd: %v\n%s", err, e.logTail(4000))
	}
}

// Start starts a stopped server again on the same ports and data directory.
func (e *Etcd) Start(t testing.TB) {
	t.Helper()
	if err := e.start(); err != nil {
		t.Fatalf("start etcd: %v\n%s", err, e.logTail(4000))
	}
}

// Stop sends SIGTERM and waits for exit, falling back to SIGKILL after 10 s.
func (e *Etcd) Stop() {
	e.signalAndWait(syscall.SIGTERM, 10*time.Second)
}

// Kill sends SIGKILL and waits for exit: a crash, as far as etcd can tell.
func (e *Etcd) Kill() {
	e.signalAndWait(syscall.SIGKILL, 10*time.Second)
}

func (e *Etcd) signalAndWait(sig syscall.Signal, grace time.Duration) {
	e.mu.Lock()
	cmd, done := e.cmd, e.done
	e.cmd, e.done = nil, nil
	e.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(grace):
		_ = cmd.Process.Kill()
		<-done
	}
}

func (e *Etcd) start() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cmd != nil {
		return errors.New("etcd already running")
	}
	logf, err := os.OpenFile(e.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	client := fmt.Sprintf("http://127.0.0.1:%d", e.clientPort)
	peer := fmt.Sprintf("http://127.0.0.1:%d", e.peerPort)
	cmd := exec.Command(e.bin,
		"--name", "default",
		"--data-dir", e.DataDir,
		"--listen-client-urls", client,
		"--advertise-client-urls", client,
		"--listen-peer-urls", peer,
		"--initial-advertise-peer-urls", peer,
		"--initial-cluster", "default="+peer,
		"--initial-cluster-state", "new",
		"--logger", "zap",
		"--log-outputs", "stderr",
	)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group, so a signal sent to the test's group (Ctrl-C)
	// does not race our own shutdown of the server.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(done)
	}()
	e.cmd, e.done = cmd, done
	e.mu.Unlock()
	err = e.waitHealthy(done, 30*time.Second)
	e.mu.Lock()
	return err
}

// waitHealthy polls /health on the client URL; etcd answers "true" only once
// the member has a leader and can serve linearizable requests.
func (e *Etcd) waitHealthy(exited <-chan struct{}, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	url := fmt.Sprintf("http://%s/health", e.Endpoint)
	hc := &http.Client{Timeout: time.Second}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := hc.Do(req); err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && bytes.Contains(body, []byte(`"true"`)) {
				return nil
			}
		}
		select {
		case <-exited:
			return errors.New("etcd exited before it became healthy")
		case <-ctx.Done():
			return fmt.Errorf("etcd not healthy within %v", limit)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (e *Etcd) logTail(n int) string {
	b, err := os.ReadFile(e.logPath)
	if err != nil {
		return ""
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}

func etcdBinary() string {
	if p, err := exec.LookPath("etcd"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/bin/etcd"); err == nil {
		return "/usr/bin/etcd"
	}
	return ""
}

// etcdFreePort asks the kernel for a free loopback port. It is private to
// this file until the shared helper lands, to avoid clashing with it.
func etcdFreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
