package leadershiploss

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"

	"github.com/gatesift/gatesift-vet/analyzers/leadership"
)

// Work gated on a "became leader" signal: a receive from controller-runtime's
// Manager.Elected() (a channel closed once, when the manager wins, and never
// reset), or from a struct field some package closes after one, followed by
// work started on a context the election does not cancel. The manager ends
// its own Runnables when the lease is lost, and its Start returns "leader
// election lost"; it does not exit. Only when that error is swallowed (only
// logged in a goroutine) does the process outlive the lease, and the gated
// work with it. Evidence of all three is required: the signal, the work, and
// the swallowed loss; anything else is silence.

// gates holds what this package contributes and sees.
type gates struct {
	elected  map[string]ElectedField // field key -> how it is closed
	survives map[string]string       // election holder -> where its loss is swallowed
	mgrErr   map[*types.Func]*ManagerErr
	local    []localGate
	reported map[string]bool // Gate.At already reported (here or by a dependency)
}

type localGate struct {
	fn   *types.Func
	gate Gate
	node ast.Node // the work call, for the report
}

func newGates() *gates {
	return &gates{elected: map[string]ElectedField{}, survives: map[string]string{}, mgrErr: map[*types.Func]*ManagerErr{}, reported: map[string]bool{}}
}

// importGates reads the facts of the dependencies.
func (c *checker) importGates(g *gates) {
	for _, pf := range c.p.AllPackageFacts() {
		switch f := pf.Fact.(type) {
		case *ElectedFields:
			for _, e := range f.Fields {
				g.elected[e.Key] = e
			}
		case *LossSurvives:
			for i, h := range f.Holders {
				g.survives[h] = f.At[i]
			}
		case *GatesReported:
			for _, at := range f.At {
				g.reported[at] = true
			}
		}
	}
}

// electedSignal says whether e is an election signal: a call of a method the
// knowledge base names elected-signal, or a field in g.elected. It returns
// the election holder and what it is.
func (c *checker) electedSignal(g *gates, e ast.Expr) (holder, via string, ok bool) {
	switch e := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		if fn := c.callee(e); fn != nil && leadership.Kind(c.p.KB, fn, "elected-signal") != nil {
			return c.p.Pkg.Path(), apiName(fn) + "()", true
		}
	case *ast.SelectorExpr:
		if f, ok := g.elected[fieldKey(c.info.Selections[e])]; ok {
			return f.Holder, f.Key, true
		}
	}
	return "", "", false
}

// receivedFrom returns X of a statement `<-X` or a select case `case <-X:`.
func receivedFrom(s ast.Stmt) ast.Expr {
	if es, ok := s.(*ast.ExprStmt); ok {
		if u, ok := ast.Unparen(es.X).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
			return u.X
		}
	}
	return nil
}

// regions calls visit for every statement that receives from a channel,
// with the statements that run after the receive: the rest of its block, or
// its select case's body.
func regions(body *ast.BlockStmt, visit func(x ast.Expr, recv ast.Node, after []ast.Stmt)) {
	ast.Inspect(body, func(n ast.Node) bool {
		var list []ast.Stmt
		switch n := n.(type) {
		case *ast.BlockStmt:
			list = n.List
		case *ast.CaseClause:
			list = n.Body
		case *ast.CommClause:
			if n.Comm != nil {
				if x := receivedFrom(n.Comm); x != nil {
					visit(x, n.Comm, n.Body)
				}
			}
			list = n.Body
		}
		for i, s := range list {
			if x := receivedFrom(s); x != nil {
				visit(x, s, list[i+1:])
			}
		}
		return true
	})
}

// findElected records the fields this package closes after an election
// signal, to a fixpoint (a field closed after another such field).
func (c *checker) findElected(g *gates, files []*ast.File) []ElectedField {
	var out []ElectedField
	for range 3 {
		changed := false
		for _, f := range files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				regions(fd.Body, func(x ast.Expr, _ ast.Node, after []ast.Stmt) {
					holder, via, ok := c.electedSignal(g, x)
					if !ok {
						return
					}
					for _, s := range after {
						key, at := c.closedField(s)
						if key == "" {
							continue
						}
						if _, seen := g.elected[key]; seen {
							continue
						}
						e := ElectedField{Key: key, Holder: holder, Via: via, At: c.where(at)}
						g.elected[key] = e
						out = append(out, e)
						changed = true
					}
				})
			}
		}
		if !changed {
			break
		}
	}
	return out
}

// closedField returns the key of the channel field a statement closes,
// close(x.F).
func (c *checker) closedField(s ast.Stmt) (string, token.Pos) {
	es, ok := s.(*ast.ExprStmt)
	if !ok {
		return "", token.NoPos
	}
	call, ok := ast.Unparen(es.X).(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return "", token.NoPos
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return "", token.NoPos
	}
	if b, ok := c.info.Uses[id].(*types.Builtin); !ok || b.Name() != "close" {
		return "", token.NoPos
	}
	sel, ok := ast.Unparen(call.Args[0]).(*ast.SelectorExpr)
	if !ok {
		return "", token.NoPos
	}
	return fieldKey(c.info.Selections[sel]), call.Pos()
}

// electedFromCallbacks records the channel fields a client-go
// OnStartedLeading literal closes, when its OnStoppedLeading does not stop
// the work: the election's loss is then survived by construction.
func (c *checker) electedFromCallbacks(g *gates, s *site) *ElectedField {
	lit, ok := ast.Unparen(s.start).(*ast.FuncLit)
	if !ok || s.ctxOnly || s.stopsAny {
		return nil
	}
	if stops, _ := c.stopsWork(s.fd, s.stop, false); stops {
		return nil
	}
	for _, st := range lit.Body.List {
		key, at := c.closedField(st)
		if key == "" {
			continue
		}
		holder := c.where(s.node.Pos())
		g.survives[holder] = c.where(s.stopKey.Pos())
		e := ElectedField{Key: key, Holder: holder, Via: "OnStartedLeading", At: c.where(at)}
		g.elected[key] = e
		return &e
	}
	return nil
}

// runnableStart: Start(ctx) error of a type in a package that imports
// controller-runtime is a manager.Runnable (the modelling of
// analyzers/jobs): the manager cancels its ctx when it stops, and it stops
// when the lease is lost.
func (c *checker) runnableStart(fd *ast.FuncDecl) bool {
	fn, _ := c.info.Defs[fd.Name].(*types.Func)
	if fn == nil || fn.Name() != "Start" {
		return false
	}
	sig := fn.Type().(*types.Signature)
	if sig.Recv() == nil || sig.Params().Len() != 1 || sig.Results().Len() != 1 || !isContext(sig.Params().At(0).Type()) {
		return false
	}
	for _, imp := range c.p.Pkg.Imports() {
		if strings.HasPrefix(imp.Path(), crPrefix) {
			return true
		}
	}
	return false
}

const crPrefix = "sigs.k8s.io/controller-runtime"

// findGates records, per function, the work started after a receive from a
// channel field of type chan struct{} (a candidate signal) or from an
// election signal, on a context that is not the manager's.
func (c *checker) findGates(g *gates, files []*ast.File) map[*types.Func][]Gate {
	out := map[*types.Func][]Gate{}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || c.runnableStart(fd) {
				continue
			}
			fn, _ := c.info.Defs[fd.Name].(*types.Func)
			if fn == nil {
				continue
			}
			regions(fd.Body, func(x ast.Expr, recv ast.Node, after []ast.Stmt) {
				field, holder := "", ""
				if h, _, ok := c.electedSignal(g, x); ok && isCall(x) {
					holder = h
				} else if sel, ok := ast.Unparen(x).(*ast.SelectorExpr); ok && isStopChan(c.info.TypeOf(sel)) {
					field = fieldKey(c.info.Selections[sel])
				}
				if field == "" && holder == "" {
					return
				}
				for _, w := range c.gatedWork(fd, recv, after) {
					gate := Gate{Field: field, Holder: holder, Work: gateWorkName(w.call), Ctx: w.arg.why, At: c.where(w.call.Pos())}
					out[fn] = append(out[fn], gate)
					g.local = append(g.local, localGate{fn: fn, gate: gate, node: w.call})
				}
			})
		}
	}
	return out
}

func isCall(e ast.Expr) bool {
	_, ok := ast.Unparen(e).(*ast.CallExpr)
	return ok
}

// gatedWork finds work in the statements after a receive: a go statement
// or a Run/Start call (isWork) whose context or stop channel is provably not
// bound to anything the election ends: context.Background(), or a context
// of the enclosing declaration (its parameter, or one captured). Closures of
// the declaration called there are read too.
func (c *checker) gatedWork(fd *ast.FuncDecl, recv ast.Node, after []ast.Stmt) []finding {
	if len(after) == 0 {
		return nil
	}
	// the innermost function holding the receive: its body is the scope
	var scope ast.Node = fd.Body
	var typ *ast.FuncType = &ast.FuncType{}
	var body = fd.Body
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if lit, ok := n.(*ast.FuncLit); ok && lit.Pos() <= recv.Pos() && recv.End() <= lit.End() {
			scope, typ, body = lit, lit.Type, lit.Body
		}
		return true
	})
	cb := newCallback(c, scope, typ, body)
	cb.leader = nil // no leader context here: the manager's is not in sight
	cb.outer, cb.outerName = fd, fd.Name.Name
	var found []finding
	seen := map[*ast.FuncLit]bool{}
	var walk func(cb *callback, nodes []ast.Stmt)
	walk = func(cb *callback, nodes []ast.Stmt) {
		for _, s := range nodes {
			ast.Inspect(s, func(n ast.Node) bool {
				var call *ast.CallExpr
				inGo := false
				switch n := n.(type) {
				case *ast.GoStmt:
					call, inGo = n.Call, true
				case *ast.CallExpr:
					call = n
				default:
					return true
				}
				if lit := c.closure(fd, call.Fun); lit != nil && !seen[lit] && !(cb.scope.Pos() <= lit.Pos() && lit.End() <= cb.scope.End()) {
					seen[lit] = true
					sub := newCallback(c, lit, lit.Type, lit.Body)
					sub.leader = nil
					sub.outer, sub.outerName = fd, fd.Name.Name
					if len(lit.Type.Params.List) == 0 {
						walk(sub, lit.Body.List)
					}
				}
				if cb.reported[call.Pos()] || !c.isWork(call, inGo) {
					return true
				}
				for _, a := range call.Args {
					if t := c.info.TypeOf(a); !isContext(t) && !isStopChan(t) {
						continue
					}
					if v := cb.classify(a); v.class == wrong {
						cb.reported[call.Pos()] = true
						found = append(found, finding{call, v})
						break
					}
				}
				return true
			})
		}
	}
	walk(cb, after)
	return found
}

// joinGates reports the gated work whose signal is an election and whose
// election's loss is swallowed: local work at its call, imported work at
// the first expression here that builds or calls what starts it.
func (c *checker) joinGates(g *gates, files []*ast.File) []string {
	var reported []string
	confirmed := func(gt Gate) (ElectedField, string, bool) {
		e := ElectedField{Holder: gt.Holder, Via: "the manager's Elected()"}
		if gt.Field != "" {
			var ok bool
			if e, ok = g.elected[gt.Field]; !ok {
				return e, "", false
			}
		}
		at, ok := g.survives[e.Holder]
		return e, at, ok
	}
	report := func(node ast.Node, gt Gate, e ElectedField, lossAt string) {
		signal := "the manager's Elected()"
		if gt.Field != "" {
			signal = gt.Field + " (closed once at " + e.At + " after " + e.Via + ", never reset)"
		}
		c.p.Reportf(node, nil,
			"leader work %s (%s) waits for %s to signal leadership, then runs on %s, which losing the lease does not cancel; leadership loss is only logged (%s), so the process goes on and the work keeps running beside the new leader: on N replicas two leaders act at once; run the work on a context the election cancels (a leader-elected Runnable's ctx, the OnStartedLeading ctx), or exit when leadership is lost",
			gt.Work, gt.At, signal, gt.Ctx, lossAt)
		reported = append(reported, gt.At)
		g.reported[gt.At] = true
	}
	inReport := map[*ast.File]bool{}
	for _, f := range c.p.Files() {
		inReport[f] = true
	}
	for _, lg := range g.local {
		if g.reported[lg.gate.At] {
			continue
		}
		if e, at, ok := confirmed(lg.gate); ok {
			report(lg.node, lg.gate, e, at)
		}
	}
	// imported candidates, anchored where this package wires them
	type imported struct {
		fn    *types.Func
		gates []Gate
	}
	var imps []imported
	for _, of := range c.p.AllObjectFacts() {
		if f, ok := of.Fact.(*Gates); ok {
			if fn, ok := of.Object.(*types.Func); ok && fn.Pkg() != c.p.Pkg {
				imps = append(imps, imported{fn, f.Sites})
			}
		}
	}
	sort.Slice(imps, func(i, j int) bool { return imps[i].fn.FullName() < imps[j].fn.FullName() })
	for _, im := range imps {
		// one finding per function that starts the work: its pieces of
		// work are one job, reported together where it is wired
		var works []Gate
		var e ElectedField
		var at string
		for _, gt := range im.gates {
			if g.reported[gt.At] {
				continue
			}
			ge, gat, ok := confirmed(gt)
			if !ok {
				continue
			}
			if len(works) == 0 {
				e, at = ge, gat
			} else if ge.Key != e.Key || gat != at {
				continue // another signal or another election: a later report
			}
			works = append(works, gt)
		}
		if len(works) == 0 {
			continue
		}
		node := c.anchor(files, inReport, im.fn)
		if node == nil {
			continue
		}
		merged := works[0]
		for _, w := range works[1:] {
			merged.Work += " (" + merged.At + "), " + w.Work
			merged.At = w.At
			if w.Ctx != merged.Ctx {
				merged.Ctx += "; " + w.Ctx
			}
		}
		report(node, merged, e, at)
		for _, w := range works {
			if !g.reported[w.At] {
				reported = append(reported, w.At)
				g.reported[w.At] = true
			}
		}
	}
	return reported
}

// anchor returns the first call of fn in files, or the first expression
// whose type is fn's receiver type (the constructor call that builds it).
func (c *checker) anchor(files []*ast.File, inReport map[*ast.File]bool, fn *types.Func) ast.Node {
	var recv *types.Named
	if sig := fn.Type().(*types.Signature); sig.Recv() != nil {
		recv = namedOf(sig.Recv().Type())
	}
	for _, f := range files {
		if !inReport[f] {
			continue
		}
		var found ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if found != nil {
				return false
			}
			e, ok := n.(ast.Expr)
			if !ok {
				return true
			}
			if call, ok := e.(*ast.CallExpr); ok && c.callee(call) != nil && c.callee(call).Origin() == fn {
				found = call
				return false
			}
			if _, ok := e.(*ast.CallExpr); ok && recv != nil {
				if n := namedOf(c.info.TypeOf(e)); n != nil && n.Origin() == recv.Origin() {
					found = e
					return false
				}
			}
			return true
		})
		if found != nil {
			return found
		}
	}
	return nil
}

// exportGates publishes what this package found. The package facts carry
// what was imported too: go vet hands a package only its direct imports'
// package facts, and the three parts of gated work may be several import
// edges apart.
func (c *checker) exportGates(g *gates, found map[*types.Func][]Gate) {
	if len(g.elected) > 0 {
		f := &ElectedFields{}
		for _, e := range g.elected {
			f.Fields = append(f.Fields, e)
		}
		sort.Slice(f.Fields, func(i, j int) bool { return f.Fields[i].Key < f.Fields[j].Key })
		c.p.ExportPackageFact(f)
	}
	if len(g.survives) > 0 {
		f := &LossSurvives{}
		for h := range g.survives {
			f.Holders = append(f.Holders, h)
		}
		slices.Sort(f.Holders)
		for _, h := range f.Holders {
			f.At = append(f.At, g.survives[h])
		}
		c.p.ExportPackageFact(f)
	}
	for fn, gs := range found {
		if fn.Pkg() == c.p.Pkg {
			c.p.ExportObjectFact(fn, &Gates{Sites: gs})
		}
	}
	for fn, m := range g.mgrErr {
		if fn.Pkg() == c.p.Pkg {
			c.p.ExportObjectFact(fn, m)
		}
	}
	if len(g.reported) > 0 {
		f := &GatesReported{}
		for at := range g.reported {
			f.At = append(f.At, at)
		}
		slices.Sort(f.At)
		c.p.ExportPackageFact(f)
	}
}

// gateWorkName names the call that starts gated work, as written.
func gateWorkName(call *ast.CallExpr) string {
	if _, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok {
		return "a goroutine"
	}
	name := types.ExprString(call.Fun)
	if len(name) > 60 {
		name = name[:57] + "..."
	}
	return name
}
