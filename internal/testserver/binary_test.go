package testserver

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// recordTB stands in for the test in Binary's calls to see whether it
// skips or fails, without skipping or failing the real test.
type recordTB struct {
	testing.TB
	skipped, failed string
}

func (r *recordTB) Helper() {}

func (r *recordTB) Skip(args ...any) {
	r.skipped = fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *recordTB) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func missingBinary(t *testing.T) *recordTB {
	t.Cleanup(func() { forgetSkips("gatesift-no-such-server") }) // not a skip of this run
	r := &recordTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Binary(r, "gatesift-no-such-server", "no-such-package", t.TempDir())
	}()
	<-done
	return r
}

func TestBinaryMissingSkips(t *testing.T) {
	t.Setenv(RequireEnv, "")
	r := missingBinary(t)
	if r.failed != "" || !strings.Contains(r.skipped, `"no-such-package"`) {
		t.Fatalf("skipped %q, failed %q; want a skip naming the package", r.skipped, r.failed)
	}
}

func TestBinaryMissingFailsWhenRequired(t *testing.T) {
	t.Setenv(RequireEnv, "1")
	r := missingBinary(t)
	if r.skipped != "" || !strings.Contains(r.failed, `"no-such-package"`) || !strings.Contains(r.failed, RequireEnv) {
		t.Fatalf("skipped %q, failed %q; want a failure naming the package and %s", r.skipped, r.failed, RequireEnv)
	}
}

func TestBinaryFound(t *testing.T) {
	dir := t.TempDir()
	if p := findBinary("sh", []string{dir}); p == "" {
		t.Fatal("sh not found on PATH")
	}
	if p := findBinary("postgres", []string{"/usr/lib/postgresql/*/bin"}); p != "" && !strings.HasPrefix(p, "/usr/lib/postgresql/") {
		t.Fatalf("postgres found at %s; want the versioned Debian directory", p)
	}
}

func forgetSkips(group string) {
	shared.mu.Lock()
	delete(shared.skips, group)
	shared.mu.Unlock()
}

const skipHelperEnv = "GATESIFT_TESTSERVER_SKIP_HELPER"

// TestSkipSummaryHelper is run by TestSkipSummary in a child test binary:
// two tests that need a server binary that does not exist.
func TestSkipSummaryHelper(t *testing.T) {
	if os.Getenv(skipHelperEnv) != "1" {
		t.Skip("run by TestSkipSummary")
	}
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) {
			Binary(t, "gatesift-no-such-server", "no-such-package", t.TempDir())
		})
	}
}

// TestSkipSummary runs this test binary, without -test.v, on two tests that
// skip for want of a server: Main must print one line for the group, with
// the count and the way to get the server; with GATESIFT_REQUIRE_SERVICES=1
// the tests fail as before and nothing is summarised as skipped.
func TestSkipSummary(t *testing.T) {
	run := func(require string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSkipSummaryHelper$")
		cmd.Env = append(os.Environ(), skipHelperEnv+"=1", SkipSummaryTTYEnv+"=0", RequireEnv+"="+require)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("")
	if err != nil {
		t.Fatalf("the helper failed: %v\n%s", err, out)
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "testserver: ") {
			lines = append(lines, l)
		}
	}
	want := "testserver: testserver: 2 tests skipped without gatesift-no-such-server (" + RequireEnv + "=1 fails them instead): gatesift-no-such-server not found"
	if len(lines) != 1 || !strings.HasPrefix(lines[0], want) || !strings.Contains(lines[0], "apt-get install no-such-package") {
		t.Errorf("want one summary line starting %q and naming the package; got %q in\n%s", want, lines, out)
	}

	out, err = run("1")
	if err == nil || strings.Contains(out, "skipped without") || !strings.Contains(out, RequireEnv+"=1 makes this a failure") {
		t.Errorf("with %s=1: want the tests to fail and no skip summary; err %v\n%s", RequireEnv, err, out)
	}
}
