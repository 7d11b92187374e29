package effects

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/constant"
	"go/token"
	"go/types"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/gatesift/gatesift-vet/analyzers/settings"
	"github.com/gatesift/gatesift-vet/signals"
)

// Effect is one change of shared state.
type Effect struct {
	Kind       string // send, insert, update, delete, increment, write
	Resource   string // "table charges", "redis key lock:billing", "" when unknown
	Idempotent bool   // duplicated load, not a duplicated outcome
	// Unknown: a write whose nature the analysis cannot read (a statement
	// it cannot fold, an ORM update whose value it cannot see). It may
	// accumulate or converge, so it is no evidence for a default report:
	// shown under the strict profile and in the inventory only.
	Unknown bool
	// Stmt links an unknown SQL write to the statement parameter (1-based)
	// of the function the effect is reached through, so that a call which
	// passes a readable statement classifies it; 0 when not a parameter.
	// StmtGate: that function returns the statement's answer.
	Stmt     int
	StmtGate bool
	// Keys are the parameters (0-based, receiver not counted) of the
	// function the effect is reached through that the write is keyed by
	// (arguments of its statement): a caller that passes the instance's
	// own identity there writes only its own row (a lease heartbeat
	// through a store of another package).
	Keys []int
	// Handle links a database/sql statement to the parameter (1-based,
	// receiver not counted) of the function the effect is reached through
	// that is the handle it runs on: a call that passes a handle of an
	// embedded engine there drops it (embedded.go); 0 when not a parameter.
	Handle int
	API    string // the call that has the effect, e.g. "database/sql.(*DB).ExecContext"
	Where  string // file:line of that call, for messages in other packages
	Via    string // the function the effect is reached through, if not direct
	// Extends: the write moves the expiry of the rows it keys (a lease's
	// or a message's visibility timeout, sqltext.ExtendsExpiry): a
	// renewal when the key is one the caller holds.
	Extends bool
	// ReadModifyWrite gives the evidence of a read-modify-write (an
	// increment of a value read through the same store): its read and
	// write calls and their positions; "" for other effects.
	ReadModifyWrite string
	// Tests: the effect runs only when these tests of the parameters of
	// the function it is reached through hold (the branch of a dispatch on
	// a method or an operation code that reaches it, dispatch.go); a call
	// that passes constants keeps only the effects of the branches they
	// select.
	Tests []ParamTest
}

// Duplicates reports whether running the effect on every replica is
// evidence for a report: an accumulating write or a send by default; any
// write, idempotent and unknown ones included, under the strict profile.
func (e Effect) Duplicates(strict bool) bool {
	return strict || !e.Idempotent && !e.Unknown
}

func (e Effect) String() string {
	s := e.Kind
	if e.Resource != "" {
		s += " " + e.Resource
	}
	s += " (" + shortAPI(e.API) + ")"
	return s
}

// Summary is a function's fact: what it reaches.
type Summary struct {
	Effects []Effect
	// Coordination names the first coordination the function takes before
	// its effects (a lock, a leader check, a claim), "" when none.
	Coordination string
	// Gate: the coordination is a claim whose answer the function returns
	// (a tryClaim helper); it coordinates a caller that checks the answer.
	Gate bool
	// Consumes reports that the function pulls work from a queue, which is
	// per-replica by design.
	Consumes bool
	// Telemetry reports that the function reads the process's own
	// statistics (runtime, Prometheus registry, expvar).
	Telemetry bool
	// Queries are the function's parameters that it runs as a query
	// (QueryContext(ctx, q)): a caller that passes a claim (SELECT ... FOR
	// UPDATE SKIP LOCKED, UPDATE ... RETURNING) makes it one.
	Queries []QueryParam
	// Scripts are the function's parameters that it runs as a Redis
	// script (handle.Run(ctx, c, keys)): a caller that passes a claim
	// script (scriptclaim.go) makes it one.
	Scripts []ScriptParam
	// Answers are the function's results that carry a claim's answer got
	// from a function it calls (claimanswers.go); a claim helper itself
	// (Gate) needs none.
	Answers []Answer
}

// QueryParam is a parameter a function runs as a query statement.
type QueryParam struct {
	Param int    // index among the function's parameters
	Gate  bool   // the function returns the query's answer
	API   string // the query call
	Where string
}

// AFact marks Summary as a fact.
func (*Summary) AFact() {}

func (s *Summary) String() string {
	return fmt.Sprintf("effects(%d, coord=%q, consumes=%v, telemetry=%v)", len(s.Effects), s.Coordination, s.Consumes, s.Telemetry)
}

// Reaches is a package fact: some function of the package has a summary,
// so importers cannot take the fast exit.
type Reaches struct{}

// AFact marks Reaches as a fact.
func (*Reaches) AFact() {}

func (*Reaches) String() string { return "reaches shared state" }

// maxEffects bounds a summary so facts stay small on huge call graphs.
const maxEffects = 16

// Result gives the rules access to the package's analysis.
type Result struct {
	failure string // a panic of the analysis, reported by the rules
	pass    *analysis.Pass
	kb      *signals.Knowledge
	decls   map[*types.Func]*ast.FuncDecl
	summary map[*types.Func]*Summary
	scc     components // the recursion of Of, for recursive functions

	facades  map[facadeKey]facadeHit   // interface methods resolved to a known store
	imported map[string]*types.Package // every package below this one
	impls    map[implKey][]*types.Func // interface methods resolved to their implementations
	implAPIs map[implKey][]implAPI     // interface methods whose implementations the knowledge base names
	implPkgs map[*types.Package]bool   // packages that are or import a package with effects (effectsBeside)
	ssa      *flow                     // value flow, built on first use
	ssaTrace *ssaTrace                 // who asks for it, under GATESIFT_DEBUG_SSA=1
	rmw      map[token.Pos]*rmwHit     // read-modify-writes by write call, found on first use
	// rmwCandNodes: the functions shaped like a read-modify-write
	// (rmwCandidates), once rmwCandsDone
	rmwCandNodes []ast.Node
	rmwCandsDone bool
	funcRefs     *funcValueTypes // function value references, found on first use
	callAt       map[token.Pos]*ast.CallExpr
	asValue      map[types.Object]bool     // functions named other than as a callee (claimkeys.go)
	claimParams  map[*ssa.Parameter]string // claimedParam's answers, per parameter
	embedded     int8                      // the package opens an embedded SQL engine: 1 yes, -1 no, 0 not yet asked (embedded.go)
	// returnsUndecided: bytes read and returned are not yet an answer
	// (set while the Reads facts are computed, reads.go).
	returnsUndecided bool
}

// Analyzer computes summaries; its result is a *Result.
var Analyzer = &analysis.Analyzer{
	Name:       "gatesifteffects",
	Doc:        "compute the shared-state effects and coordination of functions (facts)",
	Run:        run,
	Requires:   []*analysis.Analyzer{settings.Analyzer},
	FactTypes:  []analysis.Fact{(*Summary)(nil), (*Reaches)(nil), (*Reads)(nil), (*ReadsAnswers)(nil), (*Drain)(nil), (*Send)(nil), (*EmbeddedOpener)(nil)},
	ResultType: reflect.TypeOf((*Result)(nil)),
}

// Failure returns the internal error that stopped the analysis, or "".
func (r *Result) Failure() string { return r.failure }

func run(pass *analysis.Pass) (res any, err error) {
	kb, err := knowledgeFor(pass)
	if err != nil {
		return nil, err
	}
	r := &Result{pass: pass, kb: kb, decls: map[*types.Func]*ast.FuncDecl{}, summary: map[*types.Func]*Summary{}, ssaTrace: newSSATrace()}
	if inGOROOT(pass) {
		return r, nil
	}
	readers := readerCandidates(pass)
	fast := !relevant(pass, kb) && len(r.rmwCands()) == 0 && !snapshotCandidate(pass, r)
	drains := drainCandidates(pass.Files, pass.TypesInfo)
	if fast && len(readers) == 0 && !drains {
		return r, nil // fast exit: nothing here can reach shared state
	}
	defer func() {
		if x := recover(); x != nil {
			r.failure = fmt.Sprintf("effects analysis panicked: %v", x)
			r.decls, r.summary = map[*types.Func]*ast.FuncDecl{}, map[*types.Func]*Summary{}
			res, err = r, nil
		}
	}()
	r.exportReads(readers)
	if drains {
		r.exportDrains() // a buffer type its importers embed (owndrain.go)
	}
	if fast {
		return r, nil // only readers an importer's HTTP request may use
	}
	if sendCandidates(pass.Files) {
		defer r.exportSends() // a client its importers in this module call (ownsend.go)
	}
	for _, f := range pass.Files {
		if strings.HasSuffix(pass.Fset.File(f.Pos()).Name(), "_test.go") {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if fn, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					r.decls[fn] = fd
				}
			}
		}
	}
	// Summaries in source order (file name, offset: token.Pos order is the
	// order the driver parsed the files in). The order does not change
	// them: recursive functions are summarized together (recursion.go).
	fns := make([]*types.Func, 0, len(r.decls))
	for fn := range r.decls {
		fns = append(fns, fn)
	}
	r.sortBySource(fns)
	exported := false
	for _, fn := range fns {
		s := r.Of(fn)
		if len(s.Effects) > 0 || s.Coordination != "" || s.Consumes || s.Telemetry || len(s.Queries) > 0 || len(s.Scripts) > 0 || len(s.Answers) > 0 {
			pass.ExportObjectFact(fn, s)
			exported = true
		}
	}
	if exported {
		pass.ExportPackageFact(&Reaches{})
	}
	r.exportOpeners()
	return r, nil
}

// relevant: a package outside GOROOT that imports a package the knowledge
// base names, or one whose functions reach shared state.
func relevant(pass *analysis.Pass, kb *signals.Knowledge) bool {
	if inGOROOT(pass) {
		return false
	}
	for _, imp := range pass.Pkg.Imports() {
		if kb.Knows(imp.Path()) || pass.ImportPackageFact(imp, new(Reaches)) {
			return true
		}
	}
	return kb.Knows(pass.Pkg.Path()) && namesOwnWork(kb, pass.Pkg.Path())
}

// namesOwnWork: the knowledge base names pkgPath for more than the leader
// tests its importers make (leader-state constants, checks such as
// VerifyLeader). Those are read at their users' calls and comparisons, and
// the package's own state tests are its machinery (leaderstate.go), so a
// raft library is not analysed on their account.
func namesOwnWork(kb *signals.Knowledge, pkgPath string) bool {
	for _, list := range [][]signals.API{kb.Schedulers, kb.Effects, kb.Locks, kb.Coordinators, kb.Guards, kb.Designations, kb.PerReplica, kb.LeaderOnly} {
		for _, a := range list {
			if a.Pkg == pkgPath && a.Kind != leaderStateKind && a.Kind != "check" {
				return true
			}
		}
	}
	return false
}

// goroot is the GOROOT of the go command that built the packages' context
// (GOROOT in the environment, else the toolchain's), as go/build sees it.
var goroot = filepath.Clean(build.Default.GOROOT) + string(filepath.Separator)

// inGOROOT: the standard library is never analysed or reported on.
func inGOROOT(pass *analysis.Pass) bool {
	for _, f := range pass.Files {
		return InGOROOT(pass.Fset.File(f.Pos()).Name())
	}
	return true
}

// InGOROOT reports whether the file belongs to the standard library as the
// analyzers decide it (a package is skipped when its first file does): no
// analyzer exports a fact or reports there, so a driver may give such a
// package's importers its declarations without analyzing it.
func InGOROOT(filename string) bool {
	return strings.HasPrefix(filename, goroot)
}

func knowledgeFor(pass *analysis.Pass) (*signals.Knowledge, error) {
	s, err := settings.Of(pass)
	if err != nil {
		return nil, err
	}
	return s.Knowledge, nil
}

var inProgress = &Summary{}

// Of returns the summary of a function: computed for this package's
// functions, imported as a fact for others, nil-safe empty otherwise.
func (r *Result) Of(fn *types.Func) *Summary {
	if fn == nil {
		return &Summary{}
	}
	fn = fn.Origin()
	if s, ok := r.summary[fn]; ok {
		if r.scc.open(fn) {
			// A call back into a function whose strongly connected
			// component is still being walked: its summary is not final;
			// the component is summarized as a whole when it closes.
			r.scc.edgeTo(fn)
		}
		if s == inProgress {
			return &Summary{}
		}
		return s
	}
	decl, local := r.decls[fn]
	if !local {
		s := new(Summary)
		if fn.Pkg() != nil && fn.Pkg() != r.pass.Pkg {
			if !r.pass.ImportObjectFact(fn, s) {
				s = &Summary{}
			}
		}
		r.summary[fn] = s
		return s
	}
	r.scc.enter(fn)
	r.summary[fn] = inProgress
	r.summary[fn] = r.summarize(fn, decl)
	if members := r.scc.leave(fn); members != nil {
		r.settle(members)
	}
	return r.summary[fn]
}

// summarize computes the summary of a function of this package from its
// body, with the current summaries of what it calls.
func (r *Result) summarize(fn *types.Func, decl *ast.FuncDecl) *Summary {
	scan := r.Scan(decl.Body)
	r.addBranchTests(fn, decl, scan)
	s := scan.Summary(fn)
	if !s.Gate {
		s.Answers = r.answers(fn, decl)
	}
	if cleanupName.MatchString(fn.Name()) {
		// DeleteOldActions, PruneExpiredSessions: an ORM delete whose
		// condition we cannot read, in a function that says it removes what
		// has aged out, converges like `DELETE ... WHERE expires_at < now()`.
		for i, e := range s.Effects {
			if e.Kind == "delete" && e.Resource == "" {
				s.Effects[i].Idempotent = true
			}
		}
	}
	return s
}

var cleanupName = regexp.MustCompile(`(Old|Expired|Stale|Outdated|Obsolete|Orphan)|^(Prune|Purge|GC|Gc|Cleanup|CleanUp|Clean|prune|purge|gc|cleanup|clean)`)

// Decl returns the declaration of a function of this package, or nil.
func (r *Result) Decl(fn *types.Func) *ast.FuncDecl {
	if fn == nil {
		return nil
	}
	return r.decls[fn.Origin()]
}

// event classifies one call: what it reaches, and, when it coordinates
// nothing, whether it is the write of a read-modify-write.
func (r *Result) event(call *ast.CallExpr) (Event, []*ast.FuncLit) {
	ev, coordinated := r.callEvent(call)
	if ev.Coordination == "" && !ev.Consume {
		r.readModifyWrite(call, &ev)
	}
	if ev.Coordination == "" && !ev.Consume && len(ev.Effects) == 0 {
		r.snapshotWrite(call, &ev)
	}
	return ev, coordinated
}

// callEvent classifies one call by its callee.
func (r *Result) callEvent(call *ast.CallExpr) (ev Event, coordinated []*ast.FuncLit) {
	ev.Call = call
	callee := typeutil.Callee(r.pass.TypesInfo, call)
	fn, _ := callee.(*types.Func)
	if v, ok := callee.(*types.Var); ok && statementLike(v) && r.funcValues().mayHold(v) {
		// s.exec(ctx, q) with exec holding db.ExecContext: what every
		// value stored into the variable denotes.
		fn = r.flow().funcValue(call)
	}
	if fn == nil {
		return ev, nil
	}
	if a := r.kb.Match(signals.Coordinators, fn); a != nil && a.Kind != "dedup" && a.Kind != "owner-lookup" && a.Kind != leaderStateKind && a.Kind != "lock-new" {
		// (a dedup option coordinates the registration that carries it,
		// read by the jobs analysis, not the statements after its call;
		// a hash-ring lookup says who owns a key, and only the comparison
		// that follows it, read by LE4001, says whether this replica does;
		// a lock built is not yet held: the election that runs it is)
		ev.Coordination = shortAPI(apiName(fn))
		if i, ok := a.Arg("fn"); ok && i < len(call.Args) {
			if lit, ok := ast.Unparen(call.Args[i]).(*ast.FuncLit); ok {
				coordinated = append(coordinated, lit)
			}
		}
		if a.Kind == "election" || a.Kind == "option" {
			// Callbacks in a config literal (OnStartedLeading) are coordinated too.
			ast.Inspect(call, func(n ast.Node) bool {
				if lit, ok := n.(*ast.FuncLit); ok {
					coordinated = append(coordinated, lit)
					return false
				}
				return true
			})
		}
		if a.Kind == "claim" {
			// LPOP, RPOPLPUSH, ZPOPMIN: only the work its answer gates is
			// this replica's alone.
			if g := r.gate(call); g.checked {
				ev.Coordination, ev.Gate = "claim ("+shortAPI(apiName(fn))+")", g.returned
			} else {
				ev.Coordination = ""
			}
		}
		if a.Kind == "lock" && a.Pkg == "github.com/redis/go-redis/v9" {
			switch g := r.gate(call); {
			case !r.hasTTL(call, a):
				ev.Coordination = "" // SET NX without a TTL coordinates nothing safely (LE3001)
			case !g.checked:
				ev.Coordination = "" // SET NX whose answer is dropped: every replica goes on
			default:
				ev.Gate = g.returned
			}
		}
		return ev, coordinated
	}
	if a := r.kb.Match(signals.Effects, fn); a != nil && !r.ownPlumbing(fn, a) {
		r.classify(call, fn, a, &ev)
		return ev, nil
	}
	if a, known := r.facade(fn); a != nil {
		r.classify(call, known, a, &ev)
		return ev, nil
	}
	if apis := r.implementationAPIs(fn); apis != nil {
		for _, im := range apis {
			r.classify(call, im.fn, im.api, &ev)
		}
		return ev, nil
	}
	if s, ok := r.implementationEffects(fn); ok {
		for _, e := range s.Effects {
			// The implementations' parameters are the interface method's.
			if !r.resolveTests(call, fn, &e) {
				continue // a branch the constant argument does not select
			}
			if len(e.Keys) > 0 {
				if key := r.ownKey(call, &e); key != "" {
					r.noteRenewal(&ev, e, key, funcName(fn))
					continue
				}
			}
			ev.Effects = append(ev.Effects, e)
		}
		return ev, nil
	}
	if claim := r.implementationClaim(fn); claim != "" {
		// Through the interface the call is the implementations' claim: it
		// coordinates when its answer gates the work here.
		if g := r.gate(call); g.checked {
			ev.Coordination, ev.Gate = claim, g.returned
		}
		return ev, nil
	}
	if fn.Pkg() == nil {
		return ev, nil
	}
	s := r.Of(fn)
	ev.Consume, ev.Telemetry = s.Consumes, s.Telemetry
	ev.Coordination = s.Coordination
	if s.Gate {
		// The helper returns its claim's answer: this call coordinates only
		// when that answer gates the work here.
		if g := r.gate(call); !g.checked {
			ev.Coordination = ""
		} else {
			ev.Gate = g.returned
		}
	}
	for _, e := range s.Effects {
		if e.Via == "" {
			e.Via = funcName(fn)
		}
		if !r.resolveTests(call, fn, &e) {
			continue // a branch the constant argument does not select
		}
		if e.Handle > 0 && !r.carryHandle(call, &e) {
			continue // the helper's statement runs on an embedded engine's handle
		}
		if e.Stmt > 0 && !r.resolveStatement(call, &e, &ev) {
			continue // the statement this call hands on is a read, a claim, per-replica
		}
		if len(e.Keys) > 0 {
			if key := r.ownKey(call, &e); key != "" {
				r.noteRenewal(&ev, e, key, funcName(fn))
				continue // the helper's write is keyed by this instance's identity
			}
		}
		ev.Effects = append(ev.Effects, e)
	}
	for _, q := range s.Queries {
		r.resolveQuery(call, fn, q, &ev)
	}
	if ev.Coordination == "" {
		for _, sp := range s.Scripts {
			r.resolveScript(call, sp, &ev)
		}
	}
	return ev, nil
}

// statementLike: a variable of function type that takes a string (a
// statement, a key): worth resolving through value flow. Other function
// values stay unresolved, which keeps the SSA form unbuilt for most
// packages.
func statementLike(v *types.Var) bool {
	sig, ok := v.Type().Underlying().(*types.Signature)
	if !ok {
		return false
	}
	for i := 0; i < sig.Params().Len(); i++ {
		if b, ok := sig.Params().At(i).Type().Underlying().(*types.Basic); ok && b.Kind() == types.String {
			return true
		}
	}
	return false
}

func (r *Result) hasTTL(call *ast.CallExpr, a *signals.API) bool {
	i, ok := a.Arg("ttl")
	if !ok || i >= len(call.Args) {
		return false
	}
	if v := r.pass.TypesInfo.Types[call.Args[i]].Value; v != nil {
		if n, ok := constant.Int64Val(v); ok && n <= 0 {
			return false
		}
	}
	return true
}

func (r *Result) where(pos token.Pos) string {
	p := r.pass.Fset.Position(pos)
	return fmt.Sprintf("%s:%d", baseName(p.Filename), p.Line)
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

func funcName(fn *types.Func) string {
	if r := signals.RecvName(fn); r != "" {
		return fn.Pkg().Name() + ".(*" + r + ")." + fn.Name()
	}
	if fn.Pkg() == nil {
		return fn.Name()
	}
	return fn.Pkg().Name() + "." + fn.Name()
}

func apiName(fn *types.Func) string {
	if r := signals.RecvName(fn); r != "" {
		return fn.Pkg().Path() + ".(" + r + ")." + fn.Name()
	}
	return fn.Pkg().Path() + "." + fn.Name()
}

// shortAPI turns "github.com/redis/go-redis/v9.(cmdable).Set" into
// "redis.Set"-like text for messages.
func shortAPI(api string) string {
	pkg, rest, ok := strings.Cut(api, ".(")
	if ok {
		_, recvName, _ := strings.Cut(rest, ")")
		return lastElem(pkg) + "." + strings.TrimPrefix(recvName, ".")
	}
	i := strings.LastIndex(api, ".")
	if i < 0 {
		return api
	}
	return lastElem(api[:i]) + api[i:]
}

func lastElem(pkg string) string {
	parts := strings.Split(pkg, "/")
	last := parts[len(parts)-1]
	if len(parts) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = parts[len(parts)-2]
	}
	return last
}
