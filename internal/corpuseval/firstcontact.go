package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gatesift/gatesift-vet/analyzers/inventory"
	"gopkg.in/yaml.v3"
)

// The first-contact loop (-firstcontact FILE -batch N) analyzes whole modules
// nobody on the project has read, the way a new user would, and writes
// everything triage needs: every finding, the tool's own inventory of jobs,
// locks and elections with its verdicts, and the scheduler, lock and election
// sites a syntactic scan of the module finds, each joined to what the tool
// said about it (reported, silent and why, or not recognized). Misses can
// only be counted from that last list.

// FCModule is one entry of corpus/firstcontact.yaml.
type FCModule struct {
	Module   string   `yaml:"module" json:"module"` // module@version
	Patterns []string `yaml:"patterns" json:"patterns"`
	Batch    int      `yaml:"batch" json:"batch"`
	Notes    string   `yaml:"notes" json:"notes,omitempty"`
	// Env holds NAME=value settings for every go command and tool run on
	// the module (GOEXPERIMENT=jsonv2 for a module written for a newer Go).
	Env []string `yaml:"env" json:"env,omitempty"`
	// NoTests passes -test=false to the tool: for a module whose tests need
	// a newer Go than the local one (pocketbase's synctest.Sleep).
	NoTests bool `yaml:"no_tests" json:"no_tests,omitempty"`
}

// toolFlags are the tool flags the module's entry asks for, placed before
// the packages.
func (m FCModule) toolFlags() []string {
	if m.NoTests {
		return []string{"-test=false"}
	}
	return nil
}

// ModulePath is Module without its version.
func (m FCModule) ModulePath() string {
	if i := strings.LastIndex(m.Module, "@"); i >= 0 {
		return m.Module[:i]
	}
	return m.Module
}

type fcFile struct {
	Modules []FCModule `yaml:"modules"`
}

// parseFirstContact decodes the module list strictly and fills the default
// pattern ./... .
func parseFirstContact(name string, data []byte) ([]FCModule, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f fcFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	seen := map[string]bool{}
	for i := range f.Modules {
		m := &f.Modules[i]
		at := strings.LastIndex(m.Module, "@")
		if at <= 0 || at == len(m.Module)-1 {
			return nil, fmt.Errorf("%s: module %d: want module@version, got %q", name, i+1, m.Module)
		}
		if m.Batch < 1 {
			return nil, fmt.Errorf("%s: %s: batch must be 1 or more", name, m.Module)
		}
		if seen[m.Module] {
			return nil, fmt.Errorf("%s: %s listed twice", name, m.Module)
		}
		seen[m.Module] = true
		for _, e := range m.Env {
			if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
				return nil, fmt.Errorf("%s: %s: env %q is not NAME=value", name, m.Module, e)
			}
		}
		if len(m.Patterns) == 0 {
			m.Patterns = []string{"./..."}
		}
	}
	return f.Modules, nil
}

// selectFC keeps the modules of batch whose path or module@version is in
// only (all of the batch when only is empty).
func selectFC(mods []FCModule, batch int, only []string) ([]FCModule, error) {
	var out []FCModule
	matched := map[string]bool{}
	for _, m := range mods {
		if m.Batch != batch {
			continue
		}
		if len(only) > 0 && !contains(only, m.Module) && !contains(only, m.ModulePath()) {
			continue
		}
		matched[m.Module], matched[m.ModulePath()] = true, true
		out = append(out, m)
	}
	for _, o := range only {
		if !matched[o] {
			return nil, fmt.Errorf("-only: %q is not a module of batch %d", o, batch)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no module in batch %d", batch)
	}
	return out, nil
}

// fcOptions are the flags of a first-contact run.
type fcOptions struct {
	file, outDir, workdir, tool string
	batch                       int
	only                        []string
	strict, prepareOnly, rejoin bool
	inventoryOnly               bool
	timeout                     time.Duration
}

// runFirstContact runs the batch module by module. A module that cannot be
// prepared or analyzed is recorded with its error and the batch goes on; the
// result is written per module (so modules may be run one at a time into the
// same folder) and the batch summary is rebuilt from every module result in
// the folder. It returns whether any module had a tool error.
func runFirstContact(ctx context.Context, o fcOptions, logf func(string, ...any)) (bool, error) {
	data, err := os.ReadFile(o.file)
	if err != nil {
		return false, err
	}
	all, err := parseFirstContact(o.file, data)
	if err != nil {
		return false, err
	}
	mods, err := selectFC(all, o.batch, o.only)
	if err != nil {
		return false, err
	}
	if o.rejoin {
		return false, rejoin(o.outDir, mods, o.batch)
	}
	if err := os.MkdirAll(o.outDir, 0o755); err != nil {
		return false, err
	}
	failed := false
	for _, m := range mods {
		r := firstContactModule(ctx, o, m, logf)
		if r.Error != "" || len(r.AnalyzerErrors) > 0 {
			failed = true
			logf("ERROR %s: %s", m.Module, firstLine(r.Error))
		}
		if o.prepareOnly {
			continue
		}
		if err := writeFCModule(o.outDir, r); err != nil {
			return failed, err
		}
	}
	if o.prepareOnly {
		return failed, nil
	}
	return failed, writeFCSummary(o.outDir, o.batch)
}

// FCModuleResult is everything one module's first contact produced.
type FCModuleResult struct {
	Module         string          `json:"module"`
	Patterns       []string        `json:"patterns"`
	Batch          int             `json:"batch"`
	Tool           string          `json:"tool"`
	Profile        string          `json:"profile"`
	Dir            string          `json:"dir"`
	Started        time.Time       `json:"started"`
	PrepareSeconds float64         `json:"prepare_seconds"`
	FindingsSecs   float64         `json:"findings_seconds"`
	ReportSecs     float64         `json:"report_seconds"`
	Error          string          `json:"error,omitempty"`
	Excluded       []string        `json:"excluded,omitempty"` // packages matching the patterns that do not load: "path: error"
	Analyzed       []string        `json:"analyzed,omitempty"` // the packages analyzed instead of the patterns, when some were excluded
	AnalyzerErrors []AnalyzerError `json:"analyzer_errors,omitempty"`
	Findings       []Finding       `json:"findings"`
	// FindingsFromInventory: the findings were read from the inventory
	// (-inventory-only), one per rule of each entry whose verdict is finding.
	FindingsFromInventory bool       `json:"findings_from_inventory,omitempty"`
	Inventory             []InvEntry `json:"inventory"`
	Sites                 []Site     `json:"sites"`
	Joined                Joined     `json:"joined"`
}

func firstContactModule(ctx context.Context, o fcOptions, m FCModule, logf func(string, ...any)) FCModuleResult {
	r := FCModuleResult{Module: m.Module, Patterns: m.Patterns, Batch: m.Batch, Tool: o.tool, Profile: "default", Started: time.Now().UTC()}
	if o.strict {
		r.Profile = "strict"
	}
	start := time.Now()
	dir, err := prepareModule(ctx, o.workdir, m.Module, o.timeout, logf)
	r.PrepareSeconds = time.Since(start).Seconds()
	r.Dir = dir
	if err != nil {
		r.Error = "preparing " + m.Module + ": " + err.Error()
		return r
	}
	if o.prepareOnly {
		logf("prepared %s in %.1fs (%s)", m.Module, r.PrepareSeconds, dirSize(dir))
		return r
	}
	raw := filepath.Join(o.outDir, copyDirName(m.Module))
	var errs []string

	// The tool refuses to analyze anything when one package does not load;
	// a first contact analyzes the packages that do, and lists the others.
	roots, excluded, err := loadablePackages(ctx, dir, m.Patterns, m.Env, o.timeout)
	if err != nil {
		errs = append(errs, "listing packages: "+err.Error())
	}
	r.Excluded = excluded
	pkgs := m.Patterns
	if len(excluded) > 0 {
		logf("%s: %d packages do not load and are left out (first: %s)", m.Module, len(excluded), excluded[0])
		pkgs, r.Analyzed = roots, roots
	}

	// Type errors (old golang.org/x/tools under a new Go) and missing cgo
	// headers show only when the tool loads the packages; leave out the
	// packages that depend on the failing ones and run again.
	var lastStderr string // of the last tool run, for the load-failure retry
	retry := func(stderr string, again func()) {
		for round := 0; round < 3 && strings.Contains(stderr, loadFailure); round++ {
			kept, dropped, err := dropDependents(ctx, dir, roots, m.Env, stderr, o.timeout)
			if err != nil || len(dropped) == 0 || len(kept) == 0 {
				if err != nil {
					errs = append(errs, "leaving out packages that do not load: "+err.Error())
				}
				return
			}
			logf("  %d packages depend on packages that do not load; left out, running again", len(dropped))
			r.Excluded = append(r.Excluded, dropped...)
			roots, pkgs, r.Analyzed = kept, kept, kept
			again()
			stderr = lastStderr
		}
	}

	if !o.inventoryOnly {
		logf("%s: findings of %s", m.Module, strings.Join(m.Patterns, " "))
		var a analysis
		findings := func() {
			a = analyzeEnv(ctx, o.tool, dir, append(m.toolFlags(), pkgs...), o.strict, o.timeout, m.Env)
			lastStderr = a.Stderr
		}
		findings()
		retry(a.Stderr, findings)
		r.FindingsSecs = a.Elapsed.Seconds()
		r.Findings, r.AnalyzerErrors = a.Findings, a.AnalyzerErrors
		saveRaw(raw+".vet.stderr", a.Stderr)
		if a.Err != "" {
			errs = append(errs, "findings run: "+a.Err)
		}
		logf("  %d findings in %.1fs", len(r.Findings), r.FindingsSecs)
	}

	logf("%s: inventory (-report=json)", m.Module)
	var inv []InvEntry
	var invErr error
	inventory := func() {
		var stderr string
		inv, r.ReportSecs, stderr, invErr = inventoryRun(ctx, o.tool, dir, append(m.toolFlags(), pkgs...), m.Env, o.strict, o.timeout, raw)
		lastStderr = stderr
	}
	inventory()
	if o.inventoryOnly {
		retry(lastStderr, inventory)
		// One tool run instead of two: the inventory lists every finding's
		// job, lock or election with its rules (docs/report.md), so the
		// findings are read from it, one per rule and entry.
		r.Findings = findingsOfInventory(inv)
		r.FindingsFromInventory = true
	}
	r.Inventory = inv
	if invErr != nil {
		errs = append(errs, "inventory run: "+invErr.Error())
	}
	logf("  %d inventory entries in %.1fs", len(inv), r.ReportSecs)

	sites, err := discoverModule(dir)
	if err != nil {
		errs = append(errs, "discovery: "+err.Error())
	}
	r.Sites = sites
	r.Joined = join(r.Findings, r.Inventory, r.Sites)
	r.Error = strings.Join(errs, "\n")
	return r
}

// loadablePackages lists the packages of patterns (go list -e) and
// returns the ones that load, with their dependencies, and the others as
// "path: first error".
func loadablePackages(ctx context.Context, dir string, patterns, env []string, timeout time.Duration) (ok, broken []string, err error) {
	args := append([]string{"list", "-e", "-json=ImportPath,Error,DepsErrors"}, patterns...)
	res, err := runEnv(ctx, timeout, dir, env, "go", args...)
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("go list: exit %d: %s", res.ExitCode, tail(res.Stderr, 1000))
	}
	if err != nil {
		return nil, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(res.Stdout))
	for {
		var p struct {
			ImportPath string
			Error      *struct{ Err string }
			DepsErrors []struct{ Err string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("go list -json: %w", err)
		}
		switch {
		case p.Error != nil:
			broken = append(broken, p.ImportPath+": "+firstLine(p.Error.Err))
		case len(p.DepsErrors) > 0:
			broken = append(broken, p.ImportPath+": "+firstLine(p.DepsErrors[0].Err))
		default:
			ok = append(ok, p.ImportPath)
		}
	}
	return ok, broken, nil
}

// rejoin re-reads the module results already in outDir, discovers the
// sites again in their module copies and joins them to the saved findings
// and inventory: a change to the discovery needs no new tool run.
func rejoin(outDir string, mods []FCModule, batch int) error {
	for _, m := range mods {
		file := filepath.Join(outDir, copyDirName(m.Module)+".json")
		data, err := os.ReadFile(file)
		if errors.Is(err, os.ErrNotExist) {
			continue
		} else if err != nil {
			return err
		}
		var r FCModuleResult
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if r.Dir == "" {
			continue
		}
		sites, err := discoverModule(r.Dir)
		if err != nil {
			return err
		}
		r.Sites = sites
		r.Joined = join(r.Findings, r.Inventory, r.Sites)
		if err := writeFCModule(outDir, r); err != nil {
			return err
		}
	}
	return writeFCSummary(outDir, batch)
}

// findingsOfInventory turns the entries whose verdict is finding into
// findings at the entry's site, one per rule, the reason as the message.
func findingsOfInventory(inv []InvEntry) []Finding {
	var out []Finding
	for _, e := range inv {
		if e.Verdict != "finding" {
			continue
		}
		for _, rule := range e.Rules {
			out = append(out, Finding{Package: e.Package, Analyzer: "inventory", Category: rule, Message: e.Reason,
				Posn: fmt.Sprintf("%s:%d:%d", e.Site.File, e.Site.Line, e.Site.Column), File: e.Site.File, Line: e.Site.Line, Col: e.Site.Column})
		}
	}
	sortFindings(out)
	return out
}

// loadFailure is how the tool says that packages do not load.
const loadFailure = "cannot analyze, the packages do not load:"

// dropDependents finds the packages the tool's load errors are in (by the
// folder of each file named in stderr, or a "# import/path" line) and
// returns the packages of pkgs (import paths) that neither are one nor depend on one, in
// their own build or their tests', and the others as "path: reason".
func dropDependents(ctx context.Context, dir string, pkgs, env []string, stderr string, timeout time.Duration) (kept, dropped []string, err error) {
	args := append([]string{"list", "-e", "-test", "-deps", "-json=ImportPath,Dir,Deps,ForTest"}, pkgs...)
	res, err := runEnv(ctx, timeout, dir, env, "go", args...)
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("go list: exit %d: %s", res.ExitCode, tail(res.Stderr, 1000))
	}
	if err != nil {
		return nil, nil, err
	}
	type listed struct {
		ImportPath, Dir, ForTest string
		Deps                     []string
	}
	var all []listed
	byDir := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(res.Stdout))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("go list -json: %w", err)
		}
		if p.ForTest == "" && p.Dir != "" {
			byDir[p.Dir] = p.ImportPath
		}
		all = append(all, p)
	}
	broken := brokenPackages(stderr, byDir)
	if len(broken) == 0 {
		return nil, nil, nil
	}
	bad := map[string]string{} // root package -> the broken package it needs
	for _, p := range all {
		root := p.ImportPath
		if i := strings.Index(root, " ["); i >= 0 {
			root = root[:i]
		}
		root = strings.TrimSuffix(root, ".test")
		if p.ForTest != "" {
			root = p.ForTest
		}
		for _, d := range append([]string{p.ImportPath}, p.Deps...) {
			if broken[d] {
				bad[root] = d
				break
			}
		}
	}
	for _, p := range pkgs {
		if b, ok := bad[p]; ok {
			dropped = append(dropped, p+": needs "+b+", which does not load")
		} else {
			kept = append(kept, p)
		}
	}
	return kept, dropped, nil
}

// brokenPackages maps the file positions and "# pkg" lines of the tool's
// load errors to import paths.
func brokenPackages(stderr string, byDir map[string]string) map[string]bool {
	broken := map[string]bool{}
	for _, line := range strings.Split(stderr, "\n") {
		line = strings.TrimSpace(line)
		line = strings.TrimPrefix(line, "-: ")
		if pkg, ok := strings.CutPrefix(line, "# "); ok {
			if f := strings.Fields(pkg); len(f) > 0 {
				broken[f[0]] = true
			}
			continue
		}
		if i := strings.Index(line, ".go:"); i > 0 {
			if p, ok := byDir[filepath.Dir(line[:i+3])]; ok {
				broken[p] = true
			}
		}
	}
	return broken
}

// inventoryRun runs `gatesift-vet -report=json` and flattens the entries of
// every binary and the library into one list (an entry reached by two
// binaries once). The tool prints the report even when some packages failed
// (exit 1); the entries are kept and the failure is returned too.
func inventoryRun(ctx context.Context, tool, dir string, pkgs, env []string, strict bool, timeout time.Duration, raw string) (_ []InvEntry, secs float64, stderr string, _ error) {
	args := []string{"-report=json"}
	if strict {
		args = append(args, "-profile", "strict")
	}
	args = append(args, pkgs...)
	res, err := runEnv(ctx, timeout, dir, env, tool, args...)
	saveRaw(raw+".report.json", string(res.Stdout))
	saveRaw(raw+".report.stderr", res.Stderr)
	secs = res.Elapsed.Seconds()
	if err != nil {
		return nil, secs, res.Stderr, err
	}
	entries, perr := parseInventory(res.Stdout)
	switch {
	case perr != nil:
		return entries, secs, res.Stderr, fmt.Errorf("%v (exit %d: %s)", perr, res.ExitCode, tail(res.Stderr, 1000))
	case res.ExitCode != 0:
		return entries, secs, res.Stderr, fmt.Errorf("%s -report=json exited %d: %s", filepath.Base(tool), res.ExitCode, tail(res.Stderr, 2000))
	}
	return entries, secs, res.Stderr, nil
}

func saveRaw(path, s string) {
	if s == "" {
		return
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "corpuseval: %v\n", err)
	}
}

// InvEntry is one entry of the tool's -report=json inventory (docs/report.md,
// schema 1); only the fields triage reads.
type InvEntry struct {
	Kind    string `json:"kind"`
	Package string `json:"package"`
	Site    struct {
		File   string `json:"file"`
		Line   int    `json:"line"`
		Column int    `json:"column"`
	} `json:"site"`
	Scheduler   string             `json:"scheduler,omitempty"`
	Schedule    string             `json:"schedule,omitempty"`
	Key         string             `json:"key,omitempty"`
	Lease       string             `json:"lease,omitempty"`
	Function    string             `json:"function,omitempty"`
	Work        string             `json:"work,omitempty"`
	Resources   []string           `json:"resources,omitempty"`
	Effects     []inventory.Effect `json:"effects,omitempty"`
	Coordinator string             `json:"coordinator,omitempty"`
	Guard       string             `json:"guard,omitempty"`
	Designation string             `json:"designation,omitempty"`
	PerReplica  string             `json:"per_replica,omitempty"`
	Consumes    bool               `json:"consumes,omitempty"`
	Verdict     string             `json:"verdict"`
	Rules       []string           `json:"rules,omitempty"`
	Reason      string             `json:"reason,omitempty"`
}

// writes is what the Writes column shows: the shared resources, or else the
// effects that can accumulate (neither idempotent nor unknown) with the
// function they are reached through, so a finding shows its evidence; an
// entry with only idempotent or unknown effects shows their kinds.
func (e InvEntry) writes() string { return inventory.Writes(e.Resources, e.Effects) }

// parseInventory reads a schema-1 report and returns its distinct entries.
func parseInventory(out []byte) ([]InvEntry, error) {
	var rep struct {
		Schema   int `json:"schema"`
		Binaries []struct {
			Entries []json.RawMessage `json:"entries"`
		} `json:"binaries"`
		Library []json.RawMessage `json:"library"`
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&rep); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty -report=json output")
		}
		return nil, fmt.Errorf("parsing -report=json: %w", err)
	}
	if rep.Schema != 1 {
		return nil, fmt.Errorf("-report=json schema %d, want 1", rep.Schema)
	}
	var raws []json.RawMessage
	for _, b := range rep.Binaries {
		raws = append(raws, b.Entries...)
	}
	raws = append(raws, rep.Library...)
	seen := map[string]bool{}
	var out2 []InvEntry
	for _, r := range raws {
		var c bytes.Buffer
		if err := json.Compact(&c, r); err != nil {
			return nil, err
		}
		if seen[c.String()] {
			continue
		}
		seen[c.String()] = true
		var e InvEntry
		if err := json.Unmarshal(r, &e); err != nil {
			return nil, err
		}
		e.Site.File = filepath.ToSlash(e.Site.File)
		out2 = append(out2, e)
	}
	return out2, nil
}
