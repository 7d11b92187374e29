// Command corpuseval measures gatesift-vet on the labeled corpus of real
// public modules (corpus/*.yaml): for each case it reports found / missed /
// silent / false positive, then precision and recall per rule, then every
// finding outside the labeled ranges, which must be triaged by hand in
// corpus/triage.md. It is a measurement: misses do not fail it; only tool
// errors (a module that cannot be prepared, a tool run that fails) make it
// exit non-zero.
//
// It is not shipped to users. Run it from the repository:
//
//	go run ./internal/corpuseval [-cases a.yaml,b.yaml] [-only ID,ID] [-strict]
//	    [-workdir eval-work] [-tool path/to/gatesift-vet] [-timeout 30m]
//	    [-json FILE] [-markdown FILE] [-prepare-only]
//	go run ./internal/corpuseval -perf [-perf-warm] [-perf-modules m@v,m@v] [-perf-pattern ./...]
//	    [-perf-staticcheck path/to/staticcheck] [-perf-old-tool path/to/old/gatesift-vet]
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

const ourModule = "github.com/gatesift/gatesift-vet"

func main() {
	casesFlag := flag.String("cases", "", "comma-separated case files (default: every corpus/*.yaml of the repository)")
	only := flag.String("only", "", "comma-separated case IDs to run (default: all)")
	workdir := flag.String("workdir", "", "writable work dir for module copies and the tool binary (default: <repo>/eval-work)")
	tool := flag.String("tool", "", "gatesift-vet binary to measure (default: build ./cmd/gatesift-vet into <workdir>/bin)")
	strict := flag.Bool("strict", false, "run the tool with -profile strict")
	timeout := flag.Duration("timeout", 30*time.Minute, "timeout of each download, tidy and analysis command")
	jsonOut := flag.String("json", "", "write machine-readable results to this file")
	mdOut := flag.String("markdown", "", "write a Markdown report to this file")
	prepareOnly := flag.Bool("prepare-only", false, "download and prepare the modules, analyze nothing")
	perf := flag.Bool("perf", false, "measure wall time, CPU and peak RSS of gatesift-vet, go vet -vettool and go vet on -perf-modules instead of evaluating cases")
	perfModules := flag.String("perf-modules", defaultPerfModules, "comma-separated module@version list for -perf")
	perfPattern := flag.String("perf-pattern", "./...", "comma-separated package patterns for -perf, each measured on its own (growing patterns show how cost grows with the package count)")
	perfStaticcheck := flag.String("perf-staticcheck", "", "for -perf: also measure this staticcheck binary (install a pinned version: go install honnef.co/go/tools/cmd/staticcheck@v0.8.2)")
	perfOldTool := flag.String("perf-old-tool", "", "for -perf: also measure this older gatesift-vet binary, standalone and under go vet -vettool (before/after)")
	perfWarm := flag.Bool("perf-warm", false, "for -perf: start every command from a copy of a cache that already holds the export data of all packages, so only the analysis is measured")
	firstContact := flag.String("firstcontact", "", "first-contact mode: analyze the whole modules of this list (corpus/firstcontact.yaml) instead of cases, writing findings, the tool's inventory and the discovered sites per module into -out")
	batch := flag.Int("batch", 1, "with -firstcontact: the batch to run")
	inventoryOnly := flag.Bool("inventory-only", false, "with -firstcontact: one tool run per module (-report=json), the findings read from the inventory's finding entries (half the time, for big modules)")
	rejoinFlag := flag.Bool("rejoin", false, "with -firstcontact: run no tool; discover the sites again and re-join them to the results already in -out")
	outDir := flag.String("out", "", "with -firstcontact: the folder for the per-module results and summary (default <workdir>/firstcontact-batch<N>)")
	flag.StringVar(&noSumDB, "nosumdb", noSumDB, "GONOSUMDB for the corpus modules (module path prefixes the checksum database does not serve)")
	flag.Parse()
	if flag.NArg() > 0 {
		fatalf("unexpected arguments %q", flag.Args())
	}

	repo, err := repoRoot()
	if err != nil {
		fatalf("%v", err)
	}
	files := splitList(*casesFlag)
	if len(files) == 0 && *firstContact == "" {
		files = caseFiles(repo)
		if len(files) == 0 {
			fatalf("no case files in %s", filepath.Join(repo, "corpus"))
		}
	}
	if *firstContact != "" {
		os.Exit(firstContactMain(fcOptions{file: *firstContact, batch: *batch, outDir: *outDir, workdir: *workdir, tool: *tool, only: splitList(*only), strict: *strict, prepareOnly: *prepareOnly, rejoin: *rejoinFlag, inventoryOnly: *inventoryOnly, timeout: *timeout}, repo))
	}
	all, err := readCaseFiles(files)
	if err != nil {
		fatalf("%v", err)
	}
	selected, err := selectCases(all, splitList(*only))
	if err != nil {
		fatalf("%v", err)
	}
	if *workdir == "" {
		*workdir = filepath.Join(repo, "eval-work")
	}
	wd, err := filepath.Abs(*workdir)
	if err != nil {
		fatalf("%v", err)
	}
	if err := os.MkdirAll(wd, 0o755); err != nil {
		fatalf("%v", err)
	}

	ctx := context.Background()
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "corpuseval: "+format+"\n", args...)
	}
	rep := Report{Started: time.Now().UTC(), Profile: "default", CaseFiles: relPaths(repo, files), RepoCommit: gitHead(repo)}
	if *strict {
		rep.Profile = "strict"
	}

	if !*prepareOnly {
		if *tool == "" {
			logf("building ./cmd/gatesift-vet")
			*tool, err = buildTool(ctx, repo, wd, *timeout)
			if err != nil {
				fatalf("%v", err)
			}
		} else if *tool, err = filepath.Abs(*tool); err != nil {
			fatalf("%v", err)
		}
		rep.Tool = *tool
	}
	if *perf {
		tools := perfTools{Tool: *tool, OldTool: *perfOldTool, Staticcheck: *perfStaticcheck}
		for _, p := range []*string{&tools.OldTool, &tools.Staticcheck} {
			if *p != "" {
				if *p, err = filepath.Abs(*p); err != nil {
					fatalf("%v", err)
				}
			}
		}
		if err := runPerf(ctx, os.Stdout, wd, tools, splitList(*perfModules), splitList(*perfPattern), *perfWarm, *timeout, logf); err != nil {
			fatalf("%v", err)
		}
		return
	}

	toolErrors := false
	results := map[string]CaseResult{}
	for _, g := range groupByModule(selected) {
		mr := ModuleRun{Module: g.module, Packages: g.packages}
		start := time.Now()
		dir, err := prepareModule(ctx, wd, g.module, *timeout, logf)
		mr.PrepareSeconds = time.Since(start).Seconds()
		mr.Dir = dir
		var a analysis
		switch {
		case err != nil:
			a.Err = "preparing " + g.module + ": " + err.Error()
		case *prepareOnly:
			logf("prepared %s in %.1fs (%s)", g.module, mr.PrepareSeconds, dirSize(dir))
			rep.Modules = append(rep.Modules, mr)
			continue
		default:
			logf("analyzing %s in %s", strings.Join(g.packages, " "), g.module)
			a = analyze(ctx, *tool, dir, g.packages, *strict, *timeout)
		}
		if a.Elapsed > 0 {
			logf("  %d findings in %.1fs", len(a.Findings), a.Elapsed.Seconds())
		}
		mr.AnalyzeSeconds = a.Elapsed.Seconds()
		mr.Findings = len(a.Findings)
		mr.AnalyzerErrors = a.AnalyzerErrors
		mr.Error = a.Err
		if a.Err != "" || len(a.AnalyzerErrors) > 0 {
			toolErrors = true
			logf("ERROR %s: %s", g.module, firstLine(a.Err))
		}
		rep.Modules = append(rep.Modules, mr)
		for _, c := range g.cases {
			results[c.ID] = scoreCase(c, a.Findings, a.Err)
		}
		rep.Unlabeled = append(rep.Unlabeled, outsideRanges(g.module, a.Findings, all)...)
	}
	if *prepareOnly {
		for _, m := range rep.Modules {
			fmt.Printf("%-50s %8.1fs  %s\n", m.Module, m.PrepareSeconds, m.Dir)
		}
		return
	}
	for _, c := range selected {
		rep.Cases = append(rep.Cases, results[c.ID])
	}
	rep.Rules = scoreRules(rep.Cases)
	rep.Totals = totals(rep.Cases)
	rep.Finished = time.Now().UTC()

	printTable(os.Stdout, &rep)
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, &rep); err != nil {
			fatalf("%v", err)
		}
	}
	if *mdOut != "" {
		if err := writeMarkdown(*mdOut, &rep); err != nil {
			fatalf("%v", err)
		}
	}
	if toolErrors {
		os.Exit(1)
	}
}

// caseFiles are the corpus/*.yaml files holding cases: every one but the
// first-contact module list.
func caseFiles(repo string) []string {
	all, _ := filepath.Glob(filepath.Join(repo, "corpus", "*.yaml"))
	var files []string
	for _, f := range all {
		if !strings.HasPrefix(filepath.Base(f), "firstcontact") {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	return files
}

// firstContactMain runs -firstcontact and returns the exit code: 0, or 1
// when a module had a tool error (the others are still analyzed and written).
func firstContactMain(o fcOptions, repo string) int {
	workdir, outDir, tool, batch, prepareOnly, timeout := o.workdir, o.outDir, o.tool, o.batch, o.prepareOnly, o.timeout
	if workdir == "" {
		workdir = filepath.Join(repo, "eval-work")
	}
	wd, err := filepath.Abs(workdir)
	if err != nil {
		fatalf("%v", err)
	}
	if err := os.MkdirAll(wd, 0o755); err != nil {
		fatalf("%v", err)
	}
	if outDir == "" {
		outDir = filepath.Join(wd, fmt.Sprintf("firstcontact-batch%d", batch))
	}
	if outDir, err = filepath.Abs(outDir); err != nil {
		fatalf("%v", err)
	}
	ctx := context.Background()
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "corpuseval: "+format+"\n", args...)
	}
	if !prepareOnly && !o.rejoin {
		if tool == "" {
			logf("building ./cmd/gatesift-vet")
			if tool, err = buildTool(ctx, repo, wd, timeout); err != nil {
				fatalf("%v", err)
			}
		} else if tool, err = filepath.Abs(tool); err != nil {
			fatalf("%v", err)
		}
	}
	o.outDir, o.workdir, o.tool = outDir, wd, tool
	failed, err := runFirstContact(ctx, o, logf)
	if err != nil {
		fatalf("%v", err)
	}
	if !prepareOnly {
		logf("wrote %s", filepath.Join(outDir, "summary.md"))
	}
	if failed {
		return 1
	}
	return 0
}

// moduleGroup gathers the cases of one module version so that it is
// downloaded once and its packages analyzed in one run.
type moduleGroup struct {
	module   string
	packages []string
	cases    []Case
}

func groupByModule(cases []Case) []moduleGroup {
	var groups []moduleGroup
	index := map[string]int{}
	for _, c := range cases {
		i, ok := index[c.Module]
		if !ok {
			i = len(groups)
			index[c.Module] = i
			groups = append(groups, moduleGroup{module: c.Module})
		}
		g := &groups[i]
		if !contains(g.packages, c.Package) {
			g.packages = append(g.packages, c.Package)
		}
		g.cases = append(g.cases, c)
	}
	return groups
}

func selectCases(all []Case, ids []string) ([]Case, error) {
	if len(ids) == 0 {
		return all, nil
	}
	byID := map[string]Case{}
	for _, c := range all {
		byID[c.ID] = c
	}
	var out []Case
	for _, id := range ids {
		c, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("-only: no case %q", id)
		}
		out = append(out, c)
	}
	return out, nil
}

// repoRoot walks up from the current directory to this module's go.mod, so
// the command works from any folder of the repository.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if f, err := os.Open(filepath.Join(dir, "go.mod")); err == nil {
			sc := bufio.NewScanner(f)
			isOurs := sc.Scan() && strings.TrimSpace(sc.Text()) == "module "+ourModule
			f.Close()
			if isOurs {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("not inside the %s repository", ourModule)
		}
		dir = parent
	}
}

func gitHead(repo string) string {
	out, err := exec.Command("git", "-C", repo, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func dirSize(dir string) string {
	var n int64
	filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
		return nil
	})
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func relPaths(base string, files []string) []string {
	var out []string
	for _, f := range files {
		if abs, err := filepath.Abs(f); err == nil {
			if rel, err := filepath.Rel(base, abs); err == nil && !strings.HasPrefix(rel, "..") {
				f = rel
			}
		}
		out = append(out, filepath.ToSlash(f))
	}
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "corpuseval: "+format+"\n", args...)
	os.Exit(2)
}
