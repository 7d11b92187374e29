package testserver

import (
	"fmt"
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
