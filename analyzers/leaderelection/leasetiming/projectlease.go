package leasetiming

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
)

// A project's own lease: a goroutine renews it in a loop by sending a lock
// service's acquire RPC (lockfacts.AcquireRPC: a method of another,
// non-standard package named like DistributedLock, AcquireLease) with the
// TTL as a duration in the request (the duration itself, or its Seconds()
// or Milliseconds() in a field not named like a wait), and bounds each
// attempt with context.WithTimeout around that RPC. When constant folding
// shows that timeout at least the TTL, a renewal that blocks outlives the
// lease: the service expires it and grants it to another replica while the
// holder still waits and then believes it holds it. When the loop's own
// pace (time.NewTicker, NewTimer, Sleep, After) is at least the TTL, the
// lease lapses between renewals.
//
// Values are folded through the calls of the package from the loop down to
// the RPC (parameters bound to the caller's arguments, closure variables to
// their bindings), constants, arithmetic, phis (a TTL defaulted with
// `if ttl == 0 { ttl = 7 * time.Second }` takes the constant on that path)
// and unexported fields of the package's types that are only ever stored
// constants. The timeout must be constant on every path (a phi with an
// unknown edge may be a clamp to the TTL); the TTL is judged on each of its
// constant paths. Anything else is unknown and gives no report.

// maxDepth bounds the calls followed from the loop to the RPC; maxBodies
// bounds the function bodies walked in one package (the walk is not
// memoised, as each call binds its own values): past it the rest of the
// package gives no report.
const (
	maxDepth  = 8
	maxBodies = 20000
)

type projScan struct {
	c      *checker
	pkg    *types.Package
	fields map[*types.Var]dset // unexported fields of the package stored only constants
	seen   map[string]bool     // findings already reported, by position and message
	bodies int                 // function bodies walked so far
}

// mayRenewProjectLease is the cheap test before the SSA form is asked for
// (effects builds it lazily): the package starts a goroutine and calls a
// lock service's acquire RPC.
func (c *checker) mayRenewProjectLease() bool {
	goes, sends := false, false
	for _, f := range c.p.Files() {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				goes = true
			case *ast.CallExpr:
				if fn := lockfacts.Callee(c.info, n); fn != nil && lockfacts.AcquireRPC(fn.Origin(), c.p.Pkg) {
					sends = true
				}
			}
			return !(goes && sends)
		})
	}
	return goes && sends
}

// projectLeases checks the renewal loops of the package's own leases.
func (c *checker) projectLeases(funcs []*ssa.Function) {
	s := &projScan{c: c, pkg: c.p.Pkg, seen: map[string]bool{}}
	var all []*ssa.Function
	dup := map[*ssa.Function]bool{}
	for _, fn := range funcs {
		if !dup[fn] {
			dup[fn] = true
			all = append(all, fn)
		}
	}
	s.indexFields(all)
	for _, fn := range all {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				g, ok := in.(*ssa.Go)
				if !ok {
					continue
				}
				root, env := s.callee(g.Call, nil)
				if root != nil {
					s.loop(root, env)
				}
			}
		}
	}
}

// indexFields finds the unexported fields of the package's structs whose
// every store is a constant and whose address is not taken otherwise.
func (s *projScan) indexFields(all []*ssa.Function) {
	s.fields = map[*types.Var]dset{}
	dirty := map[*types.Var]bool{}
	for _, fn := range all {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				fa, ok := in.(*ssa.FieldAddr)
				if !ok {
					continue
				}
				f := fieldOf(fa)
				if f == nil || f.Exported() || f.Pkg() != s.pkg || !isDurationType(f.Type()) {
					continue
				}
				for _, r := range *fa.Referrers() {
					switch r := r.(type) {
					case *ssa.UnOp:
						if r.Op != token.MUL {
							dirty[f] = true
						}
					case *ssa.Store:
						if r.Addr != fa {
							dirty[f] = true
							continue
						}
						v := s.eval(r.Val, nil, 0)
						if v.unknown || len(v.vals) != 1 {
							dirty[f] = true
							continue
						}
						v.vals[0].pos = r.Pos()
						s.fields[f] = s.fields[f].union(v)
					default:
						dirty[f] = true
					}
				}
			}
		}
	}
	for f := range dirty {
		delete(s.fields, f)
	}
}

func fieldOf(fa *ssa.FieldAddr) *types.Var {
	p, ok := fa.X.Type().Underlying().(*types.Pointer)
	if !ok {
		return nil
	}
	st, ok := p.Elem().Underlying().(*types.Struct)
	if !ok || fa.Field >= st.NumFields() {
		return nil
	}
	return st.Field(fa.Field)
}

func isDurationType(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Duration"
}

// env binds a function's parameters and free variables to their folded
// values in the caller.
type env map[ssa.Value]dset

// callee returns the package's function a call runs (a static call, a
// closure) with its parameters and free variables bound in e.
func (s *projScan) callee(call ssa.CallCommon, e env) (*ssa.Function, env) {
	if call.IsInvoke() {
		return nil, nil
	}
	var fn *ssa.Function
	ne := env{}
	switch v := call.Value.(type) {
	case *ssa.Function:
		fn = v
	case *ssa.MakeClosure:
		fn, _ = v.Fn.(*ssa.Function)
		if fn != nil {
			for i, b := range v.Bindings {
				if i < len(fn.FreeVars) {
					ne[fn.FreeVars[i]] = s.eval(b, e, 0)
				}
			}
		}
	}
	if fn == nil || fn.Pkg == nil || fn.Pkg.Pkg != s.pkg || fn.Blocks == nil {
		return nil, nil
	}
	for i, a := range call.Args {
		if i < len(fn.Params) {
			d := s.eval(a, e, 0)
			for j := range d.vals {
				if !d.vals[j].pos.IsValid() {
					d.vals[j].pos = call.Pos() // the call passing the constant holds it
				}
			}
			ne[fn.Params[i]] = d
		}
	}
	return fn, ne
}

// loop checks the calls a goroutine makes inside a loop: each reaches the
// RPC with the TTL and timeout folded along the way.
func (s *projScan) loop(fn *ssa.Function, e env) {
	for _, b := range fn.Blocks {
		if !lockfacts.InCycle(b) {
			continue
		}
		for _, in := range b.Instrs {
			call, ok := in.(ssa.CallInstruction)
			if !ok {
				continue
			}
			var ttls []dval
			s.descend(call, e, 0, &ttls)
			if len(ttls) > 0 {
				s.pace(fn, e, ttls)
			}
		}
	}
}

// descend follows a call into the package (and into the closures its
// callee builds, which a connection helper calls back) down to the RPC;
// ttls collects the constant TTLs the RPC is sent with.
func (s *projScan) descend(call ssa.CallInstruction, e env, depth int, ttls *[]dval) {
	if depth > maxDepth {
		return
	}
	cc := call.Common()
	if fn := cc.StaticCallee(); fn != nil && fn.Object() != nil || cc.IsInvoke() {
		var obj *types.Func
		if cc.IsInvoke() {
			obj = cc.Method
		} else if f, ok := cc.StaticCallee().Object().(*types.Func); ok {
			obj = f
		}
		if obj != nil && lockfacts.AcquireRPC(obj, s.pkg) {
			s.rpc(call, e, ttls)
			return
		}
	}
	fn, ne := s.callee(*cc, e)
	if fn == nil {
		return
	}
	s.body(fn, ne, depth+1, ttls)
}

func (s *projScan) body(fn *ssa.Function, e env, depth int, ttls *[]dval) {
	if s.bodies++; s.bodies > maxBodies {
		return
	}
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case ssa.CallInstruction:
				s.descend(in, e, depth, ttls)
			case *ssa.MakeClosure:
				// a callback handed to a helper (WithClient(addr, func(c) error {...}))
				if f, ok := in.Fn.(*ssa.Function); ok && depth <= maxDepth {
					ne := env{}
					for i, b := range in.Bindings {
						if i < len(f.FreeVars) {
							ne[f.FreeVars[i]] = s.eval(b, e, 0)
						}
					}
					s.body(f, ne, depth+1, ttls)
				}
			}
		}
	}
}

// rpc judges one acquire RPC: its TTL against the timeout of its context.
func (s *projScan) rpc(call ssa.CallInstruction, e env, ttls *[]dval) {
	cc := call.Common()
	args := cc.Args
	if !cc.IsInvoke() && len(args) > 0 {
		args = args[1:] // the receiver
	}
	var ctx ssa.Value
	var ttl dset
	for _, a := range args {
		if ctx == nil && isContext(a.Type()) {
			ctx = a
			continue
		}
		ttl = ttl.union(s.requestTTL(a, e))
	}
	if len(ttl.vals) == 0 {
		return
	}
	*ttls = append(*ttls, ttl.vals...)
	timeout, at := s.ctxTimeout(ctx, e)
	if timeout.unknown || len(timeout.vals) == 0 {
		return
	}
	min := timeout.vals[0]
	for _, v := range timeout.vals {
		if v.ns < min.ns {
			min = v
		}
	}
	for _, t := range ttl.vals {
		if min.ns < t.ns || t.ns <= 0 {
			continue
		}
		pos := min.pos
		if !pos.IsValid() {
			pos = at
		}
		s.report(pos, []analysis.RelatedInformation{
			{Pos: call.Pos(), Message: "the renewal RPC"},
			related(t.pos, "the lease TTL "+fmtDur(t.ns)+" it sends"),
		}, "the renewal of this project's lease waits up to %s (context.WithTimeout around %s) but asks for a TTL of only %s: a renewal that blocks outlives the lease, the lock service grants it to another replica, and this holder still believes it holds it when the call returns, so two replicas work at once; bound each renewal attempt well below the TTL (at most TTL/3), or use the elector package",
			fmtDur(min.ns), calleeName(cc), fmtDur(t.ns))
		return
	}
}

// pace judges the loop's interval against the TTLs its renewals send. The
// loop is paced by its shortest wait: a loop that waits long only while it
// does not hold the lease (a slow retry) and briefly while it does is not
// judged by the long wait, so every pacing call of the goroutine must be
// constant and the shortest of them at least the TTL.
func (s *projScan) pace(fn *ssa.Function, e env, ttls []dval) {
	var at *ssa.Call
	var name string
	var min int64
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			call, ok := in.(*ssa.Call)
			if !ok {
				continue
			}
			g := call.Call.StaticCallee()
			if g == nil || g.Pkg == nil || g.Pkg.Pkg.Path() != "time" || len(call.Call.Args) != 1 {
				continue
			}
			switch g.Name() {
			case "NewTicker", "NewTimer", "Sleep", "After", "Tick":
			default:
				continue
			}
			d := s.eval(call.Call.Args[0], e, 0)
			if d.unknown || len(d.vals) == 0 {
				return // one wait of unknown length may be the short one
			}
			for _, v := range d.vals {
				if at == nil || v.ns < min {
					at, name, min = call, g.Name(), v.ns
				}
			}
		}
	}
	if at == nil {
		return
	}
	for _, t := range ttls {
		if t.ns > 0 && min >= t.ns {
			s.report(at.Pos(), []analysis.RelatedInformation{related(t.pos, "the lease TTL "+fmtDur(t.ns))},
				"this project's lease is renewed every %s (time.%s) but each renewal asks for a TTL of only %s: the lease lapses between renewals and another replica takes it while this one still believes it holds it; renew well within the TTL (every TTL/3), or use the elector package",
				fmtDur(min), name, fmtDur(t.ns))
			return
		}
	}
}

func related(pos token.Pos, msg string) analysis.RelatedInformation {
	return analysis.RelatedInformation{Pos: pos, Message: msg}
}

// valid drops related information without a position (a constant folded
// from nowhere in the source).
func valid(rs []analysis.RelatedInformation) []analysis.RelatedInformation {
	var out []analysis.RelatedInformation
	for _, r := range rs {
		if r.Pos.IsValid() {
			out = append(out, r)
		}
	}
	return out
}

func calleeName(cc *ssa.CallCommon) string {
	if cc.IsInvoke() {
		return cc.Method.Name()
	}
	if f := cc.StaticCallee(); f != nil {
		return f.Name()
	}
	return "the call"
}

// report reports at the node of the package's files that holds pos: the
// composite literal field or assignment storing the value, or the call.
func (s *projScan) report(pos token.Pos, related []analysis.RelatedInformation, format string, args ...any) {
	key := fmt.Sprintf("%d %s", pos, fmt.Sprintf(format, args...))
	if !pos.IsValid() || s.seen[key] {
		return // the same finding reached again through another chain
	}
	s.seen[key] = true
	related = valid(related)
	var node ast.Node
	for _, f := range s.c.p.Files() {
		if pos < f.Pos() || pos > f.End() {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if node != nil || n == nil || pos < n.Pos() || pos > n.End() {
				return false
			}
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				if n.Colon == pos {
					node = n
				}
			case *ast.AssignStmt:
				if n.TokPos == pos {
					node = n
				}
			case *ast.CallExpr:
				if n.Lparen == pos {
					node = n
				}
			}
			return true
		})
	}
	if node == nil {
		return // not in the files reported on
	}
	s.c.p.Reportf(node, related, format, args...)
}
