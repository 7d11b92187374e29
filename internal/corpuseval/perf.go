package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

// The -perf mode measures what gatesift-vet costs next to plain go vet, on
// the same packages of real modules: wall time, CPU time and peak RSS of
//
//	gatesift-vet ./...
//	go vet -vettool=<gatesift-vet> ./...
//	go vet ./...
//
// each with a fresh, empty GOCACHE so no run profits from an earlier one.
//
// With -perf-warm each command instead starts from its own copy of one
// cache that `go list -export -deps -test` filled: every package is already
// compiled for export data, so what remains is the analysis itself and the
// ratio is the analyzers' cost, not the compiler's.

// defaultPerfModules: client-go is the large case named by the issue (385
// packages); miniflux (87 packages) is a medium service from the corpus.
const defaultPerfModules = "k8s.io/client-go@v0.34.1,miniflux.app/v2@v2.3.3"

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
	Stderr   string
	Err      string // the command did not finish (timeout)
}

// measure runs one command with a fresh GOCACHE and returns its rusage. A
// non-zero exit is recorded, not fatal: vet tools exit non-zero on findings.
func measure(ctx context.Context, timeout time.Duration, dir, warm string, argv []string) (perfResult, error) {
	cache, err := os.MkdirTemp("", "perf-gocache-")
	if err != nil {
		return perfResult{}, err
	}
	defer os.RemoveAll(cache)
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
	cmd.Env = append(goEnv(), "GOCACHE="+cache)
	var stderr strings.Builder
	cmd.Stdout = io.Discard
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	r := perfResult{Wall: time.Since(start), Stderr: stderr.String()}
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
func runPerf(ctx context.Context, w io.Writer, workdir, tool string, modules, patterns []string, warm bool, timeout time.Duration, logf func(string, ...any)) error {
	var all []perfResult
	for _, mod := range modules {
		rs, err := perfModule(ctx, workdir, tool, mod, patterns, warm, timeout, logf)
		if err != nil {
			return err
		}
		all = append(all, rs...)
	}
	printPerf(w, all)
	return nil
}

// perfModule measures one module; its warm cache (gigabytes for a large
// module) is removed before the next module starts.
func perfModule(ctx context.Context, workdir, tool, mod string, patterns []string, warm bool, timeout time.Duration, logf func(string, ...any)) ([]perfResult, error) {
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
		rs := measurePattern(ctx, dir, warmCache, tool, pattern, timeout, logf)
		for i := range rs {
			rs[i].Module, rs[i].Pattern, rs[i].Packages = mod, pattern, n
		}
		all = append(all, rs...)
	}
	return all, nil
}

// measurePattern runs the three commands on one pattern.
func measurePattern(ctx context.Context, dir, warmCache, tool, pattern string, timeout time.Duration, logf func(string, ...any)) []perfResult {
	var all []perfResult
	cmds := []struct {
		label string
		argv  []string
	}{
		{"gatesift-vet " + pattern, []string{tool, pattern}},
		{"go vet -vettool " + pattern, []string{"go", "vet", "-vettool=" + tool, pattern}},
		{"go vet " + pattern, []string{"go", "vet", pattern}},
	}
	for _, c := range cmds {
		logf("perf: %s in %s", c.label, dir)
		r, err := measure(ctx, timeout, dir, warmCache, c.argv)
		r.Label = c.label
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
		if r.ExitCode != 0 {
			logf("perf: stderr tail: %s", tail(r.Stderr, 600))
		}
		all = append(all, r)
	}
	return all
}

// warmUp fills a new GOCACHE with the export data of every package the
// pattern and its tests need, and returns its directory.
func warmUp(ctx context.Context, dir string, patterns []string, timeout time.Duration, logf func(string, ...any)) (string, error) {
	cache, err := os.MkdirTemp("", "perf-warm-")
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, "go", append([]string{"list", "-export", "-deps", "-test", "-f", "{{.ImportPath}}"}, patterns...)...)
	cmd.Dir = dir
	cmd.Env = append(goEnv(), "GOCACHE="+cache)
	cmd.Stdout = io.Discard
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		os.RemoveAll(cache)
		return "", fmt.Errorf("warming the cache with go list -export: %v: %s", err, tail(stderr.String(), 600))
	}
	logf("perf: warm cache filled in %s", time.Since(start).Round(time.Millisecond))
	return cache, nil
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

func printPerf(w io.Writer, rs []perfResult) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "module\tpackages\tcommand\twall s\tcpu s\tmax RSS MB\texit\twall/vet\tcpu/vet\tRSS/vet\t")
	for _, r := range rs {
		var base *perfResult
		for i := range rs {
			if rs[i].Module == r.Module && rs[i].Pattern == r.Pattern && strings.HasPrefix(rs[i].Label, "go vet ") && !strings.Contains(rs[i].Label, "-vettool") {
				base = &rs[i]
			}
		}
		ratios := []string{"n/a", "n/a", "n/a"}
		if base != nil {
			div := func(a, b float64) string {
				if b == 0 {
					return "n/a"
				}
				return fmt.Sprintf("%.2f", a/b)
			}
			ratios = []string{div(r.Wall.Seconds(), base.Wall.Seconds()), div(r.CPU.Seconds(), base.CPU.Seconds()),
				div(float64(r.MaxRSSKB), float64(base.MaxRSSKB))}
		}
		if r.Err != "" || (base != nil && base.Err != "") {
			ratios = []string{"n/a", "n/a", "n/a"}
		}
		if r.Err != "" {
			fmt.Fprintf(tw, "%s\t%d\t%s\t>%.1f\t-\t-\t-\t%s\t\n", r.Module, r.Packages, r.Label, r.Wall.Seconds(), strings.Join(ratios, "\t"))
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.1f\t%.1f\t%d\t%d\t%s\t\n", r.Module, r.Packages, r.Label,
			r.Wall.Seconds(), r.CPU.Seconds(), r.MaxRSSKB/1024, r.ExitCode, strings.Join(ratios, "\t"))
	}
	tw.Flush()
}
