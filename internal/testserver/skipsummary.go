package testserver

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// SkipSummaryTTYEnv set to 0 keeps the skip summary off the terminal (for
// tests of the summary itself).
const SkipSummaryTTYEnv = "GATESIFT_SKIP_SUMMARY_TTY"

// skipSummary is one line per server group whose absence made tests of
// this test binary skip, sorted by group.
func skipSummary(binary string, skips map[string]*skipped) []string {
	groups := make([]string, 0, len(skips))
	for g := range skips {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	pkg := strings.TrimSuffix(strings.TrimSuffix(binary, ".exe"), ".test")
	lines := make([]string, 0, len(groups))
	for _, g := range groups {
		sk := skips[g]
		tests := "tests"
		if sk.tests == 1 {
			tests = "test"
		}
		lines = append(lines, fmt.Sprintf("testserver: %s: %d %s skipped without %s (%s=1 fails them instead): %s",
			pkg, sk.tests, tests, g, RequireEnv, sk.why))
	}
	return lines
}

// PrintSkipSummary writes one line per group of skipped tests (see
// SkipMissing) to stderr, where go test -v, a
// failing package and go test in a package directory show it. go test
// ./... without -v discards the output of a passing package, the skip
// messages too, so the summary also goes to the terminal (/dev/tty) when
// there is one and stderr is not already it: a user who runs the README's
// go test ./... sees what was not tested. CI sets GATESIFT_REQUIRE_SERVICES=1,
// where nothing skips.
func PrintSkipSummary() {
	shared.mu.Lock()
	lines := skipSummary(filepath.Base(os.Args[0]), shared.skips)
	shared.mu.Unlock()
	if len(lines) == 0 {
		return
	}
	text := strings.Join(lines, "\n") + "\n"
	fmt.Fprint(os.Stderr, text)
	if testing.Verbose() || os.Getenv(SkipSummaryTTYEnv) == "0" || isTerminal(os.Stderr) {
		return
	}
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		return // no controlling terminal: CI, or output redirected by a daemon
	}
	defer tty.Close()
	fmt.Fprint(tty, text)
}

// isTerminal reports whether f is a character device, as a terminal is
// (go test in a package directory streams the test binary's output there).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
