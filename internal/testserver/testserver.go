// Package testserver starts real server binaries (postgres, redis-server,
// etcd, ...) for integration tests: on free loopback ports, in temporary
// directories, and stopped again when the test or the test binary ends.
//
// When a binary is missing the test is skipped with a message naming the
// Debian package to install; with GATESIFT_REQUIRE_SERVICES=1 it fails
// instead, so CI cannot pass by skipping.
//
// A package that wants one server shared by all its tests calls Main from
// its TestMain; the shared server is then stopped after all tests ran.
// Without Main every call starts a private server tied to the test. Main
// also prints one line per missing server binary that made tests skip
// (see printSkipSummary), so that a plain go test ./... says what it did
// not test.
package testserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// RequireEnv is the environment variable that turns a missing server binary
// from a skip into a failure.
const RequireEnv = "GATESIFT_REQUIRE_SERVICES"

// Required reports whether missing server binaries must fail tests.
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// Binary finds the executable name on PATH or in one of dirs (glob patterns
// allowed; the lexically last match wins, so the newest versioned directory
// is preferred). When it is missing the test is skipped, naming the Debian
// package pkg, or failed when Required.
func Binary(t testing.TB, name, pkg string, dirs ...string) string {
	t.Helper()
	if p := findBinary(name, dirs); p != "" {
		return p
	}
	msg := fmt.Sprintf("%s not found on PATH or in %v: install the Debian package %q (apt-get install %s)", name, dirs, pkg, pkg)
	SkipMissing(t, name, msg)
	return ""
}

// SkipMissing skips the test because the binary of group (a server, a
// browser) is missing, as msg explains, or fails it when Required; Main
// (or PrintSkipSummary, for a TestMain of its own) prints a summary of the
// skips.
func SkipMissing(t testing.TB, group, msg string) {
	t.Helper()
	if Required() {
		t.Fatalf("%s; %s=1 makes this a failure", msg, RequireEnv)
	}
	shared.mu.Lock()
	if shared.skips == nil {
		shared.skips = map[string]*skipped{}
	}
	sk := shared.skips[group]
	if sk == nil {
		sk = &skipped{why: msg}
		shared.skips[group] = sk
	}
	sk.tests++
	shared.mu.Unlock()
	t.Skip(msg)
}

func findBinary(name string, dirs []string) string {
	for i := len(dirs) - 1; i >= 0; i-- {
		matches, _ := filepath.Glob(dirs[i])
		sort.Strings(matches)
		for j := len(matches) - 1; j >= 0; j-- {
			p := filepath.Join(matches[j], name)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
				return p
			}
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return ""
}

// Spec describes how to run one kind of server.
type Spec struct {
	// Name is used in directory names and messages ("postgres").
	Name string
	// Bin is the path of the server binary (see Binary).
	Bin string
	// User, when set and the test runs as root, is the OS user the server
	// runs as (postgres refuses to run as root). The data directory is
	// chowned to it.
	User string
	// Ports is how many free loopback ports the server needs (default 1).
	Ports int
	// Setup runs once before the first start, e.g. initdb.
	Setup func(ctx context.Context, s *Server) error
	// Args returns the server's arguments; it is called before every start
	// and sees the same ports and directory on a restart.
	Args func(s *Server) []string
	// Ready returns nil once the server serves requests. It is polled until
	// it succeeds, the process exits, or StartTimeout passes.
	Ready func(ctx context.Context, s *Server) error
	// StopSignal asks the server to shut down cleanly (default SIGTERM;
	// postgres wants SIGINT, its fast shutdown).
	StopSignal syscall.Signal
	// Cleanup, if set, runs in Close after the server has stopped, before
	// its directory is removed: for what a killed server leaves outside it.
	Cleanup func(s *Server)
}

// StartTimeout bounds one start of a server including Setup. It is
// generous because CI machines may be heavily shared.
const StartTimeout = 60 * time.Second

// Server is one real server process (and its process group) with a
// temporary directory that outlives restarts.
type Server struct {
	spec  Spec
	dir   string
	ports []int
	cred  *syscall.Credential

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
	log  *os.File
}

// Launch creates the server's directory, runs Setup and starts the server,
// waiting until it is ready. It is not tied to a test: the caller must call
// Close. Most callers want Start (tied to t) or Shared.
func Launch(spec Spec) (*Server, error) {
	if spec.Ports == 0 {
		spec.Ports = 1
	}
	if spec.StopSignal == 0 {
		spec.StopSignal = syscall.SIGTERM
	}
	s := &Server{spec: spec}
	if err := s.prepareDir(); err != nil {
		s.Close()
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	if spec.Setup != nil {
		if err := spec.Setup(ctx, s); err != nil {
			s.Close()
			return nil, fmt.Errorf("%s setup: %w", spec.Name, err)
		}
	}
	// Another process may grab a free port between FreePort and the
	// server's bind, so a failed first start is retried on new ports.
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if s.ports, err = FreePorts(spec.Ports); err != nil {
			break
		}
		if err = s.start(ctx); err == nil {
			return s, nil
		}
	}
	s.Close()
	return nil, err
}

// Start launches the server for one test and closes it when the test ends.
func Start(t testing.TB, spec Spec) *Server {
	t.Helper()
	s, err := Launch(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func (s *Server) prepareDir() error {
	dir, cred, err := newDir(s.spec.Name, s.spec.User)
	s.dir, s.cred = dir, cred
	return err
}

// newDir makes a temporary directory for a server named name, owned by
// the OS user when one is given and the test runs as root. It returns the
// credential to run that user's processes with (nil: as ourselves).
func newDir(name, username string) (string, *syscall.Credential, error) {
	dir, err := os.MkdirTemp(baseDir(), "gatesift-"+name+"-")
	if err != nil {
		return "", nil, err
	}
	if username == "" || os.Geteuid() != 0 {
		return dir, nil, nil
	}
	u, err := user.Lookup(username)
	if err != nil {
		return dir, nil, fmt.Errorf("%s: run as user %q: %w", name, username, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	// MkdirTemp makes 0700 dirs; the server user must reach its own dir.
	if err := os.Chmod(dir, 0o755); err != nil {
		return dir, nil, err
	}
	if err := os.Chown(dir, uid, gid); err != nil {
		return dir, nil, err
	}
	return dir, &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// DirEnv names the directory servers' temporary directories go in.
const DirEnv = "GATESIFT_TESTSERVER_DIR"

// baseDir is where server directories go: DirEnv if set, else /dev/shm
// when it is a writable tmpfs (servers write a lot and need no
// durability beyond their own process dying), else the default temp dir.
func baseDir() string {
	if d := os.Getenv(DirEnv); d != "" {
		return d
	}
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() && syscall.Access("/dev/shm", 2) == nil {
		return "/dev/shm"
	}
	return ""
}

// Command returns a command that runs as the server's user with its output
// going to the server log, for helpers such as initdb.
func (s *Server) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = s.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	return cmd
}

func (s *Server) start(ctx context.Context) error {
	logf, err := os.OpenFile(filepath.Join(s.dir, s.spec.Name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(s.spec.Bin, s.spec.Args(s)...)
	cmd.Dir = s.dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Credential: s.cred,
		// Its own process group, so a terminal's ^C goes to the test
		// only; Kill and Pause find children through /proc (procs.go).
		Setpgid: true,
		// If the test binary dies without cleanup the server dies too.
		Pdeathsig: syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("%s: %w", s.spec.Name, err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	s.mu.Lock()
	s.cmd, s.done, s.log = cmd, done, logf
	s.mu.Unlock()

	err = WaitReady(ctx, done, func(ctx context.Context) error { return s.spec.Ready(ctx, s) })
	if err != nil {
		s.kill()
		return fmt.Errorf("%s on port %d not ready: %w\n%s", s.spec.Name, s.Port(), err, s.LogTail(2000))
	}
	return nil
}

// Dir is the server's temporary directory; it survives restarts.
func (s *Server) Dir() string { return s.dir }

// Port is the server's first loopback port.
func (s *Server) Port() int { return s.ports[0] }

// Ports are all the server's loopback ports, stable across restarts.
func (s *Server) Ports() []int { return s.ports }

// Addr is "127.0.0.1:<Port>".
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.Port()) }

// PID is the process id of the running server, or 0.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil || s.cmd.Process == nil || s.exitedLocked() {
		return 0
	}
	return s.cmd.Process.Pid
}

func (s *Server) exitedLocked() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// Running reports whether the server process is alive.
func (s *Server) Running() bool { return s.PID() != 0 }

// LogTail returns up to n trailing bytes of the server's log.
func (s *Server) LogTail(n int) string {
	b, _ := os.ReadFile(filepath.Join(s.dir, s.spec.Name+".log"))
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// Stop shuts the server down cleanly (its StopSignal), waiting up to 10 s
// before killing it. The directory is kept for Restart.
func (s *Server) Stop() error {
	return s.stop(s.spec.StopSignal, 10*time.Second)
}

// Kill sends SIGKILL to the server's whole process group, a crash without
// any shutdown work, and waits until it is gone.
func (s *Server) Kill() error {
	return s.stop(syscall.SIGKILL, 0)
}

func (s *Server) kill() { _ = s.Kill() }

func (s *Server) stop(sig syscall.Signal, grace time.Duration) error {
	s.mu.Lock()
	cmd, done, logf := s.cmd, s.done, s.log
	s.cmd, s.log = nil, nil
	s.mu.Unlock()
	if cmd == nil {
		return nil
	}
	defer logf.Close()
	pid := cmd.Process.Pid
	// Collected before the leader dies, while the children still name it
	// as their parent.
	tree := processTree(pid)
	// A paused server would never act on the signal.
	signalTree(tree, syscall.SIGCONT)
	if sig == syscall.SIGKILL {
		signalTree(tree, syscall.SIGKILL)
	} else {
		_ = syscall.Kill(pid, sig)
	}
	select {
	case <-done:
	case <-time.After(grace):
		signalTree(tree, syscall.SIGKILL)
		<-done
	}
	// The leader is gone; make sure its children (postgres backends) are
	// gone too before a restart reuses the directory and port.
	signalTree(append(tree, processTree(pid)[1:]...), syscall.SIGKILL)
	if !waitGone(tree, 5*time.Second) {
		return fmt.Errorf("%s: processes %v still alive after SIGKILL", s.spec.Name, tree)
	}
	return nil
}

// Restart stops the server cleanly and starts it again on the same ports
// and directory, failing the test if it does not come back.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	s.Resume(t)
}

// Resume starts a stopped or killed server again on the same ports and
// directory (a crashed server "recovering"), failing the test if it does
// not become ready.
func (s *Server) Resume(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	if err := s.start(ctx); err != nil {
		t.Fatal(err)
	}
}

// Pause freezes the server's process group with SIGSTOP: connections stay
// open but nothing is answered, like a stalled machine.
func (s *Server) Pause() error { return s.signalGroup(syscall.SIGSTOP) }

// Continue undoes Pause.
func (s *Server) Continue() error { return s.signalGroup(syscall.SIGCONT) }

func (s *Server) signalGroup(sig syscall.Signal) error {
	pid := s.PID()
	if pid == 0 {
		return fmt.Errorf("%s is not running", s.spec.Name)
	}
	signalTree(processTree(pid), sig)
	return nil
}

// closeGrace is how long Close lets a server shut down cleanly: a clean
// shutdown removes what the server keeps outside its directory (postgres's
// shared memory segments).
const closeGrace = 5 * time.Second

// Close stops the server (killing it if it does not stop within a few
// seconds), runs the spec's Cleanup and removes its directory.
func (s *Server) Close() {
	_ = s.stop(s.spec.StopSignal, closeGrace)
	if s.spec.Cleanup != nil && s.dir != "" {
		s.spec.Cleanup(s)
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// shared holds the servers started once per test binary.
var shared struct {
	mu      sync.Mutex
	main    bool
	servers map[string]*sharedServer
	atExit  []func()            // cleanups of per-process caches, run by Main
	skips   map[string]*skipped // server group -> the tests skipped without it
}

// skipped counts the tests that skipped for want of one server binary.
type skipped struct {
	tests int
	why   string // the first skip's message: what is missing, how to get it
}

// processCache registers fn to run when Main ends and reports true, or
// reports false when Main is not in use: then a per-process cache could
// not be cleaned up and must not be made.
func processCache(fn func()) bool {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.main {
		return false
	}
	shared.atExit = append(shared.atExit, fn)
	return true
}

type sharedServer struct {
	once sync.Once
	s    *Server
	err  error
}

// Main runs the tests of a package and then closes the servers Shared
// started. Call it from TestMain:
//
//	func TestMain(m *testing.M) { testserver.Main(m) }
func Main(m *testing.M) {
	shared.mu.Lock()
	shared.main = true
	shared.mu.Unlock()
	code := m.Run()
	shared.mu.Lock()
	for _, ss := range shared.servers {
		if ss.s != nil {
			ss.s.Close()
		}
	}
	for _, fn := range shared.atExit {
		fn()
	}
	shared.mu.Unlock()
	PrintSkipSummary()
	os.Exit(code)
}

// Shared returns the server registered under key, launching it on first
// use. Under Main it lives until all tests ran; without Main it is a private
// server closed when t ends. Tests that restart or kill a server should use
// their own (Start) so they do not disturb others.
func Shared(t testing.TB, key string, spec func() Spec) *Server {
	t.Helper()
	shared.mu.Lock()
	if !shared.main {
		shared.mu.Unlock()
		return Start(t, spec())
	}
	if shared.servers == nil {
		shared.servers = map[string]*sharedServer{}
	}
	ss := shared.servers[key]
	if ss == nil {
		ss = &sharedServer{}
		shared.servers[key] = ss
	}
	shared.mu.Unlock()
	ss.once.Do(func() { ss.s, ss.err = Launch(spec()) })
	if ss.err != nil {
		t.Fatal(ss.err)
	}
	return ss.s
}

// UniqueName returns a short name unique within this process, for per-test
// databases, tables and key prefixes on a shared server.
func UniqueName(prefix string) string {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	uniqueSeq++
	return fmt.Sprintf("%s_%d_%d", strings.ToLower(prefix), os.Getpid(), uniqueSeq)
}

var uniqueSeq int
