package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

// The -perf mode measures what gatesift-vet costs next to plain go vet and
// staticcheck, on the same packages of real modules: wall time, CPU time
// and peak RSS of
//
//	gatesift-vet ./...
//	go vet -vettool=<gatesift-vet> ./...
//	go vet ./...
//	staticcheck ./...                   (with -perf-staticcheck)
//	<an older gatesift-vet> ./...       (with -perf-old-tool, for before/after)
//
// each with a fresh, empty GOCACHE so no run profits from an earlier one
// (and staticcheck with a fresh STATICCHECK_CACHE). All of them include the
// test packages, their default. The 1-minute load average when each command
// starts is printed with it: on a shared machine the wall times depend on
// it. gatesift-vet standalone also prints its growth curve (packages done
// against time, RSS and peak RSS; GATESIFT_VET_GROWTH=1).
//
// With -perf-warm each command instead starts from its own copy of one
// cache that `go list -export -deps -test` filled: every package is already
// compiled for export data, so what remains is the analysis itself and the
// ratio is the analyzers' cost, not the compiler's.

// defaultPerfModules: client-go is the large case named by the issue (385
// packages); miniflux (87 packages) is a medium service from the corpus.
const defaultPerfModules = "k8s.io/client-go@v0.34.1,miniflux.app/v2@v2.3.3"

// perfTools are the binaries -perf measures besides go vet.
type perfTools struct {
	Tool        string // gatesift-vet
	OldTool     string // an older gatesift-vet, or ""
	Staticcheck string // staticcheck, or ""
}

// perfResult is one measured command.
type perfResult struct {
	Module   string
	Pattern  string
	Packages int // packages the pattern matches (tests not counted)
	Label    string
	Wall     time.Duration
	CPU      time.Duration // user + system, of the command and all its waited-for descendants
	MaxRSSKB int64         // largest single process in the tree, as wait4 reports it (like /usr/bin/time -v)
	ExitCode int
	Load1    string // the 1-minute load average when the command started
	Stderr   string
	Err      string // the command did not finish (timeout)
	Growth   []growthPoint
}

// growthPoint is one line of gatesift-vet's growth curve.
type growthPoint struct {
	Done, Total      int
	Millis           int64
	RSSKB, PeakRSSKB int64
}

var growthRE = regexp.MustCompile(`(?m)^gatesift-vet: growth: (\d+)/(\d+) packages (\d+) ms rss (\d+) KB peak (\d+) KB$`)

// parseGrowth reads the growth curve out of a standalone run's stderr.
func parseGrowth(stderr string) []growthPoint {
	var out []growthPoint
	for _, m := range growthRE.FindAllStringSubmatch(stderr, -1) {
		n := make([]int64, 5)
		for i := range n {
			n[i], _ = strconv.ParseInt(m[i+1], 10, 64)
		}
		out = append(out, growthPoint{int(n[0]), int(n[1]), n[2], n[3], n[4]})
	}
	return out
}

// load1 is the 1-minute load average, or "?" where /proc has none.
func load1() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	if f := strings.Fields(string(data)); len(f) > 0 {
		return f[0]
	}
	return "?"
}

// measure runs one command with a fresh GOCACHE (and the extra environment)
// and returns its rusage. A non-zero exit is recorded, not fatal: vet tools
// exit non-zero on findings.
func measure(ctx context.Context, timeout time.Duration, dir, warm string, argv, env []string) (perfResult, error) {
	cache, err := os.MkdirTemp("", "perf-gocache-")
	if err != nil {
		return perfResult{}, err
	}
	defer os.RemoveAll(cache)
	scratch, err := os.MkdirTemp("", "perf-scratch-") // for tools' own caches
	if err != nil {
		return perfResult{}, err
	}
	defer os.RemoveAll(scratch)
	if warm != "" {
		// cp -a keeps the cache's file times, which the go command's trim
		// logic reads; a copy per command keeps the runs independent.
		if out, err := exec.CommandContext(ctx, "cp", "-a", warm+"/.", cache).CombinedOutput(); err != nil {
			return perfResult{}, fmt.Errorf("copying the warm cache: %v: %s", err, out)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(append(goEnv(), "GOCACHE="+cache, "STATICCHECK_CACHE="+filepath.Join(scratch, "staticcheck")), env...)
	var stderr strings.Builder
	cmd.Stdout = io.Discard
	cmd.Stderr = &stderr
	r := perfResult{Load1: load1()}
	start := time.Now()
	err = cmd.Run()
	r.Wall, r.Stderr = time.Since(start), stderr.String()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return r, err
	}
	if ctx.Err() != nil {
		return r, fmt.Errorf("%s: timed out after %s", strings.Join(argv, " "), timeout)
	}
	r.ExitCode = cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		r.MaxRSSKB = ru.Maxrss // kilobytes on Linux
	}
	return r, nil
}

// runPerf prepares each module, then measures the three commands on
// each of `patterns` inside it, and prints the figures and the ratios to
// plain go vet on the same pattern. Several patterns of growing size show
// how the cost grows with the number of packages; with warm, one cache
// warmed for all of them serves every run.
func runPerf(ctx context.Context, w io.Writer, workdir string, tools perfTools, modules, patterns []string, warm bool, timeout time.Duration, logf func(string, ...any)) error {
	var all []perfResult
	for _, mod := range modules {
		rs, err := perfModule(ctx, workdir, tools, mod, patterns, warm, timeout, logf)
		if err != nil {
			return err
		}
		all = append(all, rs...)
	}
	printPerf(w, all)
	return failedMeasurements(all)
}

// failedMeasurements is the error runPerf returns when a command could not
// be measured (a timeout, no space for its cache copy): the table is
// printed either way, but a bench with holes must not exit 0.
func failedMeasurements(all []perfResult) error {
	var failed []string
	for _, r := range all {
		if r.Err != "" {
			failed = append(failed, r.Module+" "+r.Label)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d measurements failed: %s", len(failed), len(all), strings.Join(failed, "; "))
}

// perfModule measures one module; its warm cache (gigabytes for a large
// module) is removed before the next module starts.
func perfModule(ctx context.Context, workdir string, tools perfTools, mod string, patterns []string, warm bool, timeout time.Duration, logf func(string, ...any)) ([]perfResult, error) {
	dir, err := prepareModule(ctx, workdir, mod, timeout, logf)
	if err != nil {
		return nil, err
	}
	warmCache := ""
	if warm {
		if warmCache, err = warmUp(ctx, dir, patterns, timeout, logf); err != nil {
			return nil, err
		}
		defer os.RemoveAll(warmCache)
	}
	var all []perfResult
	for _, pattern := range patterns {
		n, err := countPackages(ctx, dir, pattern)
		if err != nil {
			return nil, err
		}
		rs := measurePattern(ctx, dir, warmCache, tools, pattern, timeout, logf)
		for i := range rs {
			rs[i].Module, rs[i].Pattern, rs[i].Packages = mod, pattern, n
		}
		all = append(all, rs...)
	}
	return all, nil
}

// perfCommand is one command -perf measures.
type perfCommand struct {
	label string
	argv  []string
	env   []string
}

// perfCommands are the commands measured on one pattern. The older
// gatesift-vet runs both ways, right after the new one under go vet, so
// that the before/after of vet mode is measured under the same load too.
func perfCommands(tools perfTools, pattern string) []perfCommand {
	cmds := []perfCommand{
		{"gatesift-vet " + pattern, []string{tools.Tool, pattern}, []string{"GATESIFT_VET_GROWTH=1"}},
		{"go vet -vettool " + pattern, []string{"go", "vet", "-vettool=" + tools.Tool, pattern}, nil},
	}
	if tools.OldTool != "" {
		cmds = append(cmds, perfCommand{"old go vet -vettool " + pattern, []string{"go", "vet", "-vettool=" + tools.OldTool, pattern}, nil})
	}
	cmds = append(cmds, perfCommand{"go vet " + pattern, []string{"go", "vet", pattern}, nil})
	if tools.Staticcheck != "" {
		cmds = append(cmds, perfCommand{"staticcheck " + pattern, []string{tools.Staticcheck, pattern}, nil})
	}
	if tools.OldTool != "" {
		cmds = append(cmds, perfCommand{"old gatesift-vet " + pattern, []string{tools.OldTool, pattern}, nil})
	}
	return cmds
}

// measurePattern runs the commands on one pattern.
func measurePattern(ctx context.Context, dir, warmCache string, tools perfTools, pattern string, timeout time.Duration, logf func(string, ...any)) []perfResult {
	var all []perfResult
	cmds := perfCommands(tools, pattern)
	for _, c := range cmds {
		logf("perf: %s in %s (load %s)", c.label, dir, load1())
		r, err := measure(ctx, timeout, dir, warmCache, c.argv, c.env)
		r.Label = c.label
		r.Growth = parseGrowth(r.Stderr)
		if err != nil {
			// A timeout is a result too (on a loaded machine a fresh-cache
			// go vet of client-go can exceed it); record it and go on.
			logf("perf: %s: %v", c.label, err)
			r.Err = err.Error()
			all = append(all, r)
			continue
		}
		logf("perf: %s: wall %s cpu %s maxrss %d MB exit %d", c.label, r.Wall.Round(time.Millisecond),
			r.CPU.Round(time.Millisecond), r.MaxRSSKB/1024, r.ExitCode)
		if r.ExitCode != 0 && !(r.ExitCode == 3 && strings.HasPrefix(c.label, "gatesift-vet")) {
			logf("perf: stderr tail: %s", tail(r.Stderr, 600))
		}
		all = append(all, r)
	}
	return all
}

// warmUp fills a new GOCACHE with the export data of every package the
// pattern and its tests need, and returns its directory. A package that
// does not build (vitess has test files behind build tags that do not
// compile without them) does not stop it: -e records the error and the
// rest is compiled, as every measured command reports that package and
// analyzes the rest too. The failing packages are logged.
func warmUp(ctx context.Context, dir string, patterns []string, timeout time.Duration, logf func(string, ...any)) (string, error) {
	cache, err := os.MkdirTemp("", "perf-warm-")
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, "go", append([]string{"list", "-e", "-export", "-deps", "-test", "-f", "{{if .Error}}{{.ImportPath}}{{end}}"}, patterns...)...)
	cmd.Dir = dir
	cmd.Env = append(goEnv(), "GOCACHE="+cache)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		os.RemoveAll(cache)
		return "", fmt.Errorf("warming the cache with go list -export: %v: %s", err, tail(stderr.String(), 600))
	}
	if failed := nonEmptyLines(stdout.String()); len(failed) > 0 {
		logf("perf: %d packages do not build and stay out of the warm cache: %s", len(failed), strings.Join(failed, ", "))
	}
	logf("perf: warm cache filled in %s", time.Since(start).Round(time.Millisecond))
	return cache, nil
}

// nonEmptyLines splits go list output whose template prints nothing for
// most packages (an import path may hold a space: "p [p.test]").
func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// countPackages is the number of packages pattern matches.
func countPackages(ctx context.Context, dir, pattern string) (int, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-f", "{{.ImportPath}}", pattern)
	cmd.Dir = dir
	cmd.Env = goEnv()
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("go list %s: %v", pattern, err)
	}
	return len(strings.Fields(string(out))), nil
}

// printPerf prints one row per command with its ratios to plain go vet
// (wall, CPU, RSS) and to staticcheck (RSS), then the growth curves.
func printPerf(w io.Writer, rs []perfResult) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "module\tpackages\tcommand\tload\twall s\tcpu s\tmax RSS MB\texit\twall/vet\tcpu/vet\tRSS/vet\tRSS/staticcheck\t")
	find := func(r perfResult, prefix string) *perfResult {
		for i := range rs {
			if rs[i].Module == r.Module && rs[i].Pattern == r.Pattern && strings.HasPrefix(rs[i].Label, prefix) && rs[i].Err == "" {
				return &rs[i]
			}
		}
		return nil
	}
	div := func(a, b float64) string {
		if b == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.2f", a/b)
	}
	for _, r := range rs {
		if r.Err != "" {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t>%.1f\t-\t-\t-\tn/a\tn/a\tn/a\tn/a\t\n", r.Module, r.Packages, r.Label, r.Load1, r.Wall.Seconds())
			continue
		}
		ratios := []string{"n/a", "n/a", "n/a", "n/a"}
		if base := find(r, "go vet "+r.Pattern); base != nil {
			ratios[0] = div(r.Wall.Seconds(), base.Wall.Seconds())
			ratios[1] = div(r.CPU.Seconds(), base.CPU.Seconds())
			ratios[2] = div(float64(r.MaxRSSKB), float64(base.MaxRSSKB))
		}
		if sc := find(r, "staticcheck "); sc != nil {
			ratios[3] = div(float64(r.MaxRSSKB), float64(sc.MaxRSSKB))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%.1f\t%.1f\t%d\t%d\t%s\t\n", r.Module, r.Packages, r.Label, r.Load1,
			r.Wall.Seconds(), r.CPU.Seconds(), r.MaxRSSKB/1024, r.ExitCode, strings.Join(ratios, "\t"))
	}
	tw.Flush()
	for _, r := range rs {
		if len(r.Growth) == 0 {
			continue
		}
		fmt.Fprintf(w, "\ngrowth of %s in %s (packages of the closure done, GOROOT included):\n", r.Label, r.Module)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "packages\tof\ttime s\tRSS MB\tpeak RSS MB\t")
		for _, g := range r.Growth {
			fmt.Fprintf(tw, "%d\t%d\t%.1f\t%d\t%d\t\n", g.Done, g.Total, float64(g.Millis)/1000, g.RSSKB/1024, g.PeakRSSKB/1024)
		}
		tw.Flush()
	}
}
