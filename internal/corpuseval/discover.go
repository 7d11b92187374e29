package main

import (
	"cmp"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Site is a scheduler, lock or election call found by reading a module's
// non-test Go files syntactically, without the tool. It is deliberately
// broader than the tool's recognizers (it knows no types): its job is to
// list the places triage must look at, so that a site the tool does not
// recognize is counted as a possible miss instead of being invisible.
type Site struct {
	Kind     string `json:"kind"`    // job, lock or election
	Pattern  string `json:"pattern"` // what matched: time.NewTicker, sleep loop (time.Sleep), cron AddFunc, SetNX, ...
	File     string `json:"file"`    // slash path relative to the module root
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Function string `json:"function,omitempty"` // enclosing declaration: Recv.Name, Name, or the var name
	Text     string `json:"text"`               // the source line, trimmed
}

// Import paths whose calls are sites. A path is matched exactly or as a
// prefix followed by "/" or a version suffix, so k8s.io/utils/clock/testing
// and github.com/go-co-op/gocron/v2 count too.
var (
	waitPkg      = "k8s.io/apimachinery/pkg/util/wait"
	waitPeriodic = names("Until", "UntilWithContext", "JitterUntil", "JitterUntilWithContext", "NonSlidingUntil", "NonSlidingUntilWithContext", "Forever", "BackoffUntil", "PollInfinite", "PollInfiniteWithContext",
		// polls bounded only by a context or channel run until shutdown when the
		// condition never returns true (cert-manager's CA reconcile)
		"PollUntilContextCancel", "PollUntil", "PollImmediateUntil", "PollUntilWithContext", "PollImmediateUntilWithContext", "PollImmediateInfinite")
	electionPkgs  = []string{"k8s.io/client-go/tools/leaderelection", "go.etcd.io/etcd/client/v3/concurrency", "go.etcd.io/etcd/clientv3/concurrency", "github.com/coreos/etcd/clientv3/concurrency"}
	electionFuncs = names("RunOrDie", "NewLeaderElector", "NewElection", "ResumeElection")
	lockPkgFuncs  = names("NewMutex", "NewLocker", "Obtain", "NewLock", "NewSemaphore")
	// Packages whose presence in a file makes Lock/TryLock/Obtain/Acquire calls
	// lock sites even without arguments (redsync's mutex.Lock() has none).
	distLockPkgs = []string{"github.com/go-redsync/redsync", "github.com/bsm/redislock", "go.etcd.io/etcd/client/v3/concurrency", "go.etcd.io/etcd/clientv3/concurrency",
		"github.com/hashicorp/consul/api", "github.com/go-co-op/gocron-redis-lock", "github.com/go-co-op/gocron-etcd-elector", "k8s.io/client-go/tools/leaderelection/resourcelock"}
	clockPkgs = []string{"github.com/benbjohnson/clock", "k8s.io/utils/clock", "github.com/jonboulle/clockwork", "github.com/andres-erbsen/clock", "code.cloudfoundry.org/clock"}
	// Scheduler methods of a clock abstraction (any receiver that is not the
	// time package: a clock library, or a project's own clock interface).
	clockSchedulers = names("NewTicker", "Ticker", "Tick", "AfterFunc")
	cronMethods     = names("AddFunc", "AddJob", "NewJob", "Every", "Cron", "CronWithSeconds", "Schedule", "MustAdd", "Add")
	lockMethods     = names("Lock", "TryLock", "LockContext", "TryLockContext", "Obtain", "Acquire", "TryAcquire")
)

// sqlLockRe matches SQL text that takes an advisory lock, claims rows, or
// writes a table whose name says lock, lease or leader.
var (
	sqlAdvisoryRe = regexp.MustCompile(`(?i)pg_(try_)?advisory(_xact)?_lock|\bget_lock\s*\(|sp_getapplock`)
	sqlSkipLocked = regexp.MustCompile(`(?i)skip\s+locked`)
	// The table name (after an optional schema) is lock/lease/leader or has
	// it after an underscore: app_locks, leases, leader_election; not
	// state_block or releases. UPDATE needs its SET, so that prose such as
	// a log message "failed to update lease" is not taken for SQL.
	sqlLockTable = regexp.MustCompile("(?i)\\b((insert\\s+(or\\s+\\w+\\s+)?into|delete\\s+from|replace\\s+into)\\s+" + lockTableName +
		"|update\\s+" + lockTableName + "[\"`]?\\s+set\\b)")
)

// lockTableName is a table name (after an optional schema and quote) that is
// lock, lease or leader or has it after an underscore.
const lockTableName = "[\"`]?(\\w+\\.)?(\\w+_)?(lock|lease|leader)\\w*"

func names(ns ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range ns {
		m[n] = true
	}
	return m
}

func pathIs(path, want string) bool {
	if path == want || strings.HasPrefix(path, want+"/") {
		return true
	}
	// major version suffixes: github.com/go-co-op/gocron/v2, redsync/v4
	if rest, ok := strings.CutPrefix(path, want); ok && len(rest) > 2 && rest[:2] == "/v" {
		_, err := strconv.Atoi(rest[2:])
		return err == nil
	}
	return false
}

func pathIn(path string, list []string) bool {
	for _, w := range list {
		if pathIs(path, w) {
			return true
		}
	}
	return false
}

// discoverModule scans every non-test .go file below root, skipping
// testdata, vendor and folders starting with "." or "_", as the go command
// does. A file that does not parse is skipped (the tool reports it if it
// matters); sites are sorted by position.
func discoverModule(root string) ([]Site, error) {
	var sites []Site
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		sites = append(sites, discoverFile(filepath.ToSlash(rel), src)...)
		return nil
	})
	sortSites(sites)
	return sites, err
}

func sortSites(sites []Site) {
	slices.SortStableFunc(sites, func(a, b Site) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col), cmp.Compare(a.Pattern, b.Pattern))
	})
}

// fileScan is the state of scanning one file.
type fileScan struct {
	fset    *token.FileSet
	rel     string
	lines   []string
	imports map[string]string // local name -> import path
	cron    bool              // the file imports a cron/scheduler library
	gocron  bool
	distLck bool // the file imports a distributed lock library
	clock   bool // the file imports a clock library
	sites   []Site
	seen    map[token.Pos]bool
	// resets: the file calls a Reset method somewhere, so its NewTimer
	// calls may be re-armed timers (a timer made in a constructor is often
	// reset in the goroutine that drains it, another function).
	resets bool
}

// discoverFile returns the sites of one file; rel is its module-relative
// path. It never fails: a file that does not parse has no sites.
func discoverFile(rel string, src []byte) []Site {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
	if err != nil && f == nil {
		return nil
	}
	s := &fileScan{fset: fset, rel: rel, lines: strings.Split(string(src), "\n"), imports: map[string]string{}, seen: map[token.Pos]bool{}}
	s.resets = hasMethodCall(f, "Reset")
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		local := pathBase(path)
		if imp.Name != nil {
			local = imp.Name.Name
		}
		s.imports[local] = path
		low := strings.ToLower(path)
		if strings.Contains(low, "cron") || strings.Contains(low, "scheduler") {
			s.cron = true
		}
		if strings.Contains(low, "gocron") {
			s.gocron = true
		}
		if pathIn(path, distLockPkgs) {
			s.distLck = true
		}
		if pathIn(path, clockPkgs) {
			s.clock = true
		}
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			fn := d.Name.Name
			if d.Recv != nil && len(d.Recv.List) > 0 {
				fn = recvName(d.Recv.List[0].Type) + "." + fn
			}
			if d.Name.Name == "NeedLeaderElection" && d.Recv != nil {
				s.add(d.Pos(), "election", "NeedLeaderElection method (controller-runtime runnable)", fn)
			}
			if d.Body != nil {
				s.scan(d.Body, fn)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				if vs, ok := spec.(*ast.ValueSpec); ok && len(vs.Names) > 0 {
					for _, v := range vs.Values {
						s.scan(v, vs.Names[0].Name)
					}
				}
			}
		}
	}
	return s.sites
}

// pathBase is the default local name of an import path: its last element,
// without a major version suffix (gocron/v2 is gocron).
func pathBase(path string) string {
	parts := strings.Split(path, "/")
	last := parts[len(parts)-1]
	if len(parts) > 1 && len(last) > 1 && last[0] == 'v' {
		if _, err := strconv.Atoi(last[1:]); err == nil {
			last = parts[len(parts)-2]
		}
	}
	if i := strings.IndexAny(last, ".-"); i > 0 && !strings.HasPrefix(path, "gopkg.in/") {
		last = last[:i]
	} else if strings.HasPrefix(path, "gopkg.in/") {
		last, _, _ = strings.Cut(last, ".")
	}
	return last
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

func (s *fileScan) add(pos token.Pos, kind, pattern, fn string) {
	if s.seen[pos] {
		return
	}
	s.seen[pos] = true
	p := s.fset.Position(pos)
	text := ""
	if p.Line >= 1 && p.Line <= len(s.lines) {
		text = strings.TrimSpace(s.lines[p.Line-1])
		if len(text) > 160 {
			text = text[:160] + "..."
		}
	}
	s.sites = append(s.sites, Site{Kind: kind, Pattern: pattern, File: s.rel, Line: p.Line, Col: p.Column, Function: fn, Text: text})
}

// pkgCall returns the import path and function name of a call pkg.F(...)
// where pkg is an imported package name of the file.
func (s *fileScan) pkgCall(call *ast.CallExpr) (string, string, bool) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return "", "", false
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return "", "", false
	}
	path, ok := s.imports[id.Name]
	if !ok {
		return "", "", false
	}
	return path, sel.Sel.Name, true
}

// scan walks one declaration's body. fn names the declaration, for the
// join with the tool's inventory, which names functions too.
func (s *fileScan) scan(body ast.Node, fn string) {
	// Loop bodies: a timer made anew on every iteration is re-armed too
	// (robfig/cron's run loop, which cert-manager forks).
	var loops []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ForStmt:
			loops = append(loops, n.Body)
		case *ast.RangeStmt:
			loops = append(loops, n.Body)
		}
		return true
	})
	inLoop := func(pos token.Pos) bool {
		for _, l := range loops {
			if l.Pos() <= pos && pos < l.End() {
				return true
			}
		}
		return false
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ForStmt:
			if what := sleepIn(s, n.Body); what != "" {
				s.add(n.Pos(), "job", "sleep loop ("+what+")", fn)
			}
		case *ast.RangeStmt:
			if what := sleepIn(s, n.Body); what != "" {
				s.add(n.Pos(), "job", "sleep loop ("+what+")", fn)
			}
		case *ast.CallExpr:
			s.call(n, fn, s.resets, inLoop(n.Pos()))
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				s.literal(n, fn)
			}
		case *ast.KeyValueExpr:
			if k, ok := n.Key.(*ast.Ident); ok && k.Name == "LeaderElection" {
				s.add(n.Pos(), "election", "LeaderElection option", fn)
			}
		}
		return true
	})
}

// call records a call that is a site. resets: the file calls Reset;
// inLoop: the call is inside a loop body of its declaration.
func (s *fileScan) call(call *ast.CallExpr, fn string, resets, inLoop bool) {
	if path, name, ok := s.pkgCall(call); ok {
		switch {
		case path == "time" && (name == "NewTicker" || name == "Tick" || name == "AfterFunc"):
			s.add(call.Pos(), "job", "time."+name, fn)
		case path == "time" && name == "NewTimer" && resets:
			s.add(call.Pos(), "job", "time.NewTimer + Reset", fn)
		case path == "time" && name == "NewTimer" && inLoop:
			s.add(call.Pos(), "job", "time.NewTimer in a loop", fn)
		case pathIs(path, waitPkg) && waitPeriodic[name]:
			s.add(call.Pos(), "job", "wait."+name, fn)
		case pathIn(path, electionPkgs) && electionFuncs[name]:
			s.add(call.Pos(), "election", pathBase(path)+"."+name, fn)
		case (pathIn(path, distLockPkgs) || pathIn(path, electionPkgs)) && lockPkgFuncs[name]:
			s.add(call.Pos(), "lock", pathBase(path)+"."+name, fn)
		case pathIn(path, clockPkgs) && clockSchedulers[name]:
			s.add(call.Pos(), "job", "clock "+pathBase(path)+"."+name, fn)
		}
		return
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return
	}
	m := sel.Sel.Name
	switch {
	case m == "SetNX" || m == "SetNx":
		s.add(call.Pos(), "lock", "redis "+m, fn)
	case clockSchedulers[m] && m != "Tick" && m != "Ticker" || (m == "Tick" || m == "Ticker") && s.clock:
		// a clock abstraction's NewTicker/AfterFunc on any receiver; Tick and
		// Ticker are common method names, so only in files importing a clock.
		s.add(call.Pos(), "job", "clock ."+m, fn)
	case m == "NewTimer" && resets:
		s.add(call.Pos(), "job", "clock .NewTimer + Reset", fn)
	case m == "NewTimer" && (inLoop || s.clock):
		// in a loop, or through a clock library: a project's own AfterFunc
		// over a mockable clock (cert-manager's pkg/scheduler)
		s.add(call.Pos(), "job", "clock .NewTimer", fn)
	case s.distLck && lockPkgFuncs[m] && m != "Obtain":
		// redsync's rs.NewMutex(name), a lock client's constructor method
		s.add(call.Pos(), "lock", "."+m, fn)
	case m == "Campaign":
		s.add(call.Pos(), "election", ".Campaign", fn)
	case cronMethods[m] && len(call.Args) > 0 && cronReceiver(sel.X):
		// app.Cron().Add(id, spec, fn), s.scheduler.Every(...): a project's own
		// scheduler, whatever package it lives in
		s.add(call.Pos(), "job", "cron ."+m, fn)
	case s.cron && cronMethods[m] && len(call.Args) > 0 && (m != "Add" && m != "Schedule" || s.gocron || cronSpecArg(call)):
		s.add(call.Pos(), "job", "cron ."+m, fn)
	case lockMethods[m] && (len(call.Args) > 0 && m != "Acquire" && m != "TryAcquire" || s.distLck):
		// sync.Mutex.Lock() takes no argument; a Lock(ctx, key) does.
		s.add(call.Pos(), "lock", "."+m+"(...)", fn)
	case redisSetNX(call):
		s.add(call.Pos(), "lock", "redis SET ... NX", fn)
	}
}

// cronSpecArg reports whether the first argument is a string literal that
// looks like a cron spec ("*/5 * * * *", "@every 1m").
func cronSpecArg(call *ast.CallExpr) bool {
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return false
	}
	v, _ := strconv.Unquote(lit.Value)
	return strings.HasPrefix(v, "@") || strings.Count(strings.TrimSpace(v), " ") >= 4
}

// redisSetNX recognizes Do("SET", key, value, ..., "NX") and friends
// (redigo, rueidis' arguments as literals).
func redisSetNX(call *ast.CallExpr) bool {
	set, nx := false, false
	for _, a := range call.Args {
		lit, ok := a.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			continue
		}
		v, _ := strconv.Unquote(lit.Value)
		switch strings.ToUpper(v) {
		case "SET":
			set = true
		case "NX", "SETNX":
			nx = true
			if strings.ToUpper(v) == "SETNX" {
				set = true
			}
		}
	}
	return set && nx
}

func (s *fileScan) literal(lit *ast.BasicLit, fn string) {
	v, err := strconv.Unquote(lit.Value)
	if err != nil {
		return
	}
	switch {
	case sqlAdvisoryRe.MatchString(v):
		s.add(lit.Pos(), "lock", "SQL advisory lock", fn)
	case sqlSkipLocked.MatchString(v):
		s.add(lit.Pos(), "lock", "SQL SKIP LOCKED claim", fn)
	case sqlLockTable.MatchString(v):
		s.add(lit.Pos(), "lock", "SQL lock/lease table", fn)
	}
}

// sleepIn reports what makes a loop body wait between iterations:
// time.Sleep, <-time.After, or a clock's Sleep/After. Function literals and
// nested loops are not looked into (a nested loop is a site of its own).
func sleepIn(s *fileScan, body *ast.BlockStmt) string {
	what := ""
	ast.Inspect(body, func(n ast.Node) bool {
		if what != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			return false
		case *ast.CallExpr:
			if path, name, ok := s.pkgCall(n); ok {
				if path == "time" && (name == "Sleep" || name == "After") {
					what = "time." + name
				}
				if pathIn(path, clockPkgs) && (name == "Sleep" || name == "After") {
					what = pathBase(path) + "." + name
				}
				return what == ""
			}
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok && (sel.Sel.Name == "Sleep" || sel.Sel.Name == "After") && len(n.Args) == 1 && isClockish(sel.X) {
				what = "clock ." + sel.Sel.Name
			}
		}
		return what == ""
	})
	return what
}

// isClockish reports whether a receiver expression is named like a clock
// (clock, clk, c.clock, s.Clock): a project's own clock interface.
func isClockish(e ast.Expr) bool {
	var name string
	switch x := e.(type) {
	case *ast.Ident:
		name = x.Name
	case *ast.SelectorExpr:
		name = x.Sel.Name
	default:
		return false
	}
	low := strings.ToLower(name)
	return strings.Contains(low, "clock") || low == "clk"
}

// cronReceiver reports whether a method's receiver is named like a
// scheduler: cron, c.cron, app.Cron(), s.scheduler.
func cronReceiver(e ast.Expr) bool {
	var name string
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		name = x.Name
	case *ast.SelectorExpr:
		name = x.Sel.Name
	case *ast.CallExpr:
		if sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr); ok {
			name = sel.Sel.Name
		} else if id, ok := x.Fun.(*ast.Ident); ok {
			name = id.Name
		}
	}
	low := strings.ToLower(name)
	return strings.Contains(low, "cron") || strings.Contains(low, "scheduler")
}

// hasMethodCall reports whether n contains a call of a method named m.
func hasMethodCall(n ast.Node, m string) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == m {
				found = true
			}
		}
		return !found
	})
	return found
}
