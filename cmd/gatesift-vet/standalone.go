package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/gatesift/gatesift-vet/analyzers/jobs"
	"github.com/gatesift/gatesift-vet/config"
	"github.com/gatesift/gatesift-vet/signals"
)

// options are the standalone command line.
type options struct {
	commonFlags
	printDigest    bool
	json           bool
	format         string
	output         string
	baseline       string
	writeBaseline  string
	list           bool
	explain        string
	failOnFindings bool
	version        bool
	tests          bool
	cpuProfile     string
	context        int
	tags           string
	report         string
	sourceURL      string
}

func newFlagSet(o *options, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(progname, flag.ContinueOnError)
	fs.SetOutput(stderr)
	o.commonFlags.register(fs)
	fs.BoolVar(&o.printDigest, "print-config-digest", false, "print the digest of the .gatesift.yaml files (and -config) for -config-digest, and exit")
	fs.BoolVar(&o.json, "json", false, "print the go vet JSON tree instead of text (same as -format=json)")
	fs.StringVar(&o.format, "format", "text", "output `format`: text, json or sarif")
	fs.StringVar(&o.output, "o", "", "write the results to `file` instead of standard output")
	fs.StringVar(&o.report, "report", "", "print an inventory of the jobs, locks and leader elections, grouped by binary, instead of findings: markdown, json or html")
	fs.StringVar(&o.sourceURL, "report-source-url", defaultSourceURL, "with -report=html, link each site to this URL `template`: {file} (relative to the module root), {abs} (absolute path), {line}; e.g. https://github.com/org/repo/blob/main/{file}#L{line}")
	fs.StringVar(&o.baseline, "baseline", "", "report only findings not recorded in this baseline `file`")
	fs.StringVar(&o.writeBaseline, "write-baseline", "", "record every current finding in this baseline `file` and exit 0")
	fs.BoolVar(&o.list, "list", false, "list the rules (with -json, as JSON) and exit")
	fs.StringVar(&o.explain, "explain", "", "print the documentation of a `rule` (ID or name) and exit")
	fs.BoolVar(&o.failOnFindings, "fail-on-findings", false, "exit 3 on findings with -json and SARIF too")
	fs.BoolVar(&o.version, "V", false, "print the version and exit (-V=full: the go vet protocol)")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	fs.BoolVar(&o.tests, "test", true, "also load test packages, as go vet does (rules skip _test.go files unless the config opts in)")
	fs.IntVar(&o.context, "c", -1, "with text output, display the offending line plus `N` lines of context (as go vet -c)")
	fs.StringVar(&o.tags, "tags", "", "comma-separated build `tags` for loading packages (as go build -tags)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to `file` (for slow runs on large codebases)")
	fs.Usage = func() { usage(fs, stderr) }
	return fs
}

func usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, `%[1]s finds missing or broken Leader Election in Go services.

Usage:
	%[1]s [flags] [packages]          # standalone, e.g. %[1]s ./...
	go vet -vettool=$(which %[1]s) [flags] [packages]
	%[1]s -list | -explain LE1001 | -version

Exit codes:
	0  no findings; with -json or -format=sarif, whatever was found
	1  tool, configuration or package-loading error (any format)
	3  findings; with -json or SARIF only under -fail-on-findings

Flags:
`, progname)
	fs.PrintDefaults()
}

func runStandalone(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := newFlagSet(&o, stderr)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitTool
	}
	switch {
	case o.version:
		fmt.Fprintf(stdout, "%s version %s\n", progname, versionDescription(version()))
		return exitOK
	case o.list:
		return listRules(stdout, stderr, o.json)
	case o.explain != "":
		return explain(stdout, stderr, o.explain)
	}
	if o.json {
		if o.format != "text" && o.format != "json" {
			return fatalf(stderr, "-json conflicts with -format=%s", o.format)
		}
		o.format = "json"
	}
	switch o.format {
	case "text", "json", "sarif":
	default:
		return fatalf(stderr, "-format %q: want text, json or sarif", o.format)
	}
	if o.report != "" && !slices.Contains(reportFormats, o.report) {
		return fatalf(stderr, "-report %q: want %s", o.report, strings.Join(reportFormats, ", "))
	}
	if err := checkSourceURL(o.sourceURL); err != nil {
		return fatalf(stderr, "%v", err)
	}
	if o.baseline != "" && o.writeBaseline != "" {
		return fatalf(stderr, "-baseline and -write-baseline are exclusive")
	}
	src, err := o.commonFlags.source(false)
	if err != nil {
		return fatalf(stderr, "%v", err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fatalf(stderr, "%v", err)
	}
	if o.printDigest {
		fmt.Fprintln(stdout, src.Digest(cwd))
		return exitOK
	}
	// Read the baseline before the (slow) analysis: a bad file name fails fast.
	var base *baseline
	if o.baseline != "" {
		if base, err = readBaseline(o.baseline); err != nil {
			return fatalf(stderr, "%v", err)
		}
	}

	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return fatalf(stderr, "%v", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return fatalf(stderr, "%v", err)
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}

	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"."} // as go vet
	}
	var buildFlags []string
	if o.tags != "" {
		buildFlags = []string{"-tags=" + o.tags}
	}
	// The whole program's analysis runs in this process (under go vet, one
	// process per package holds no more than that package): see memlimit.go.
	if limit := setMemoryLimit(); limit > 0 && os.Getenv(growthEnv) == "1" {
		fmt.Fprintf(stderr, "gatesift-vet: memory limit %d MB\n", limit>>20)
	}
	if pct := setGCPercent(os.Getenv("GOGC")); pct > 0 && os.Getenv(growthEnv) == "1" {
		fmt.Fprintf(stderr, "gatesift-vet: GC percent %d\n", pct)
	}
	res, code := analyze(src, cwd, patterns, o.tests, buildFlags, o.report != "", stderr)
	if res == nil {
		return code
	}
	if code != exitOK && o.writeBaseline != "" {
		// A baseline of a partial run would forget the findings of the
		// packages that did not load.
		fmt.Fprintf(stderr, "%s: not writing %s: some packages did not load\n", progname, o.writeBaseline)
		return code
	}

	if o.writeBaseline != "" {
		if err := writeBaseline(o.writeBaseline, res.findings); err != nil {
			return fatalf(stderr, "%v", err)
		}
		fmt.Fprintf(stderr, "%s: wrote %d finding(s) to %s\n", progname, len(res.findings), o.writeBaseline)
		if len(res.errors) > 0 {
			printErrors(stderr, res)
			return exitTool
		}
		return exitOK
	}
	if base != nil {
		res.findings = base.filter(res.findings)
	}

	var out bytes.Buffer
	switch {
	case o.report != "":
		err = writeReport(&out, res, o.report, sourceLinks{template: o.sourceURL, cwd: cwd, root: res.root})
	case o.format == "text":
		writeText(&out, res, o.context)
	case o.format == "json":
		err = writeJSON(&out, res)
	case o.format == "sarif":
		err = writeSARIF(&out, res)
	}
	if err != nil {
		return fatalf(stderr, "%v", err)
	}
	if o.output != "" {
		if err := os.WriteFile(o.output, out.Bytes(), 0o666); err != nil {
			return fatalf(stderr, "%v", err)
		}
	} else if _, err := stdout.Write(out.Bytes()); err != nil {
		return fatalf(stderr, "%v", err)
	}

	if len(res.errors) > 0 {
		// The findings that were computed are out; the failure is still a
		// tool failure, whatever the format, and logged for CI.
		printErrors(stderr, res)
		return exitTool
	}
	if code != exitOK {
		return code // packages that did not load, already on stderr
	}
	if len(res.findings) > 0 && (o.format == "text" && o.report == "" || o.failOnFindings) {
		return exitFindings
	}
	return exitOK
}

// analyze loads the packages and runs every analyzer on them (with
// inventory, the jobs analysis too, for -report). A non-zero code means the
// run failed and the reason is already on stderr. A package that does not
// load or type-check is reported on stderr as soon as it is found and makes
// the code exitTool, but every package that does not import it is analyzed
// and its findings are in the results, as with go vet.
func analyze(src config.Source, cwd string, patterns []string, tests bool, buildFlags []string, inventory bool, stderr io.Writer) (*results, int) {
	// The configuration of the working directory (usually the module
	// root's) is checked before the slow load, to fail fast on a typo.
	if _, err := src.ForDir(cwd); err != nil {
		fmt.Fprintln(stderr, shortenPaths(err.Error(), cwd))
		return nil, exitTool
	}
	prog := newProgress(stderr)
	prog.printf("loading %s", strings.Join(patterns, " "))
	cfg := &packages.Config{
		// Only the graph and the file lists: the driver parses and
		// type-checks each package itself, in dependency order.
		Mode:       loadMode,
		Dir:        cwd,
		Tests:      tests,
		BuildFlags: buildFlags,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		prog.done()
		return nil, fatalf(stderr, "loading packages: %v", err)
	}
	if len(pkgs) == 0 {
		prog.done()
		return nil, fatalf(stderr, "no packages match %s", strings.Join(patterns, " "))
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].ID < pkgs[j].ID })

	// A malformed .gatesift.yaml makes every rule fail on every package;
	// resolve each package's configuration first to say it once.
	seen := map[string]bool{}
	var cfgErrs []string
	for _, p := range pkgs {
		if len(p.GoFiles) == 0 {
			continue
		}
		if _, err := src.ForDir(filepath.Dir(p.GoFiles[0])); err != nil && !seen[err.Error()] {
			seen[err.Error()] = true
			cfgErrs = append(cfgErrs, shortenPaths(err.Error(), cwd))
		}
	}
	if len(cfgErrs) > 0 {
		prog.done()
		for _, m := range cfgErrs {
			fmt.Fprintln(stderr, m)
		}
		return nil, exitTool
	}

	prog.printf("analyzing %d package(s)", len(pkgs))
	roots := analyzers(src)
	if inventory {
		roots = analyzers(src, jobs.Analyzer)
	}
	eng, err := newEngine(roots, cwd, inventory, src, func(msg string) {
		prog.done()
		fmt.Fprintln(stderr, msg)
	})
	if err != nil {
		prog.done()
		return nil, fatalf(stderr, "%v", err)
	}
	eng.growthTo = stderr
	eng.run(pkgs)
	prog.done()
	res := collect(eng, pkgs, cwd, src)
	if len(eng.broken) > 0 {
		eng.printSkipped(stderr)
		return res, exitTool
	}
	return res, exitOK
}

// shortenPaths makes the absolute paths of files below cwd relative, as the
// go command prints them.
func shortenPaths(msg, cwd string) string {
	return strings.ReplaceAll(msg, cwd+string(filepath.Separator), "")
}

// printErrors prints each distinct analysis error once. The actions that
// failed only because a prerequisite did are left out when the cause is
// printed.
func printErrors(w io.Writer, res *results) {
	causes := false
	for _, e := range res.errors {
		if !strings.HasPrefix(e.err, "failed prerequisites") {
			causes = true
		}
	}
	seen := map[string]bool{}
	for _, e := range res.errors {
		m := shortenPaths(e.err, res.cwd)
		if seen[m] || causes && strings.HasPrefix(m, "failed prerequisites") {
			continue
		}
		seen[m] = true
		fmt.Fprintf(w, "%s: %s: %s\n", progname, e.analyzer, m)
	}
}

func listRules(stdout, stderr io.Writer, asJSON bool) int {
	if asJSON {
		type jsonRule struct {
			ID        string `json:"id"`
			Name      string `json:"name"`
			Default   bool   `json:"default"`
			Precision string `json:"precision"`
			Since     string `json:"since"`
			Title     string `json:"title"`
			Help      string `json:"help"`
			URL       string `json:"url"`
		}
		var list []jsonRule
		for _, r := range signals.Rules {
			list = append(list, jsonRule{r.ID, r.Name, r.Default, string(r.Precision), r.Since, r.Title, r.Help, r.URL()})
		}
		if err := writeIndentedJSON(stdout, list); err != nil {
			return fatalf(stderr, "%v", err)
		}
		return exitOK
	}
	writeRuleTable(stdout)
	return exitOK
}
