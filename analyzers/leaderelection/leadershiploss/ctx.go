package leadershiploss

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gatesift/gatesift-vet/analyzers/leadership"
)

// class says whether a context (or stop channel) expression inside a leader
// callback is bound to leadership.
type class int

const (
	unknown class = iota // cannot tell: no report
	bound                // the callback's ctx, or derived from it
	wrong                // provably not derived from the callback's ctx
)

type verdict struct {
	class class
	why   string // for wrong: what the context is
}

// callback checks one leader callback body: a function literal or a
// declared function whose first context parameter is the leader context.
type callback struct {
	c      *checker
	scope  ast.Node // *ast.FuncLit or *ast.FuncDecl
	body   *ast.BlockStmt
	leader *types.Var // nil when the parameter is unnamed or _

	defs      map[*types.Var][]ast.Expr // values assigned inside the callback
	cancelOf  map[*types.Var]*types.Var // ctx var -> its cancel func var
	deferred  map[*types.Var]bool       // cancel funcs called (or handed on) in the callback
	closed    map[*types.Var]bool       // channels closed or sent on in the callback
	outer     *ast.FuncDecl             // the enclosing declaration, if any
	later     []ast.Node                // defer statements and function literals
	waits     []token.Pos               // receives from the leader's Done()
	visiting  map[*types.Var]bool
	reported  map[token.Pos]bool
	outerName string // the enclosing function's name, for messages
}

func newCallback(c *checker, scope ast.Node, typ *ast.FuncType, body *ast.BlockStmt) *callback {
	cb := &callback{
		c: c, scope: scope, body: body,
		defs:     map[*types.Var][]ast.Expr{},
		cancelOf: map[*types.Var]*types.Var{},
		deferred: map[*types.Var]bool{},
		closed:   map[*types.Var]bool{},
		visiting: map[*types.Var]bool{},
		reported: map[token.Pos]bool{},
	}
	if typ.Params != nil {
	params:
		for _, f := range typ.Params.List {
			for _, n := range f.Names {
				if v, ok := c.info.Defs[n].(*types.Var); ok && v != nil && isContext(v.Type()) {
					if n.Name != "_" {
						cb.leader = v
					}
					break params
				}
			}
			if len(f.Names) == 0 && isContext(c.info.TypeOf(f.Type)) {
				break
			}
		}
	}
	cb.index()
	return cb
}

func (cb *callback) index() {
	info := cb.c.info
	varOf := func(e ast.Expr) *types.Var {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return nil
		}
		if v, ok := info.Defs[id].(*types.Var); ok && v != nil {
			return v
		}
		v, _ := info.Uses[id].(*types.Var)
		return v
	}
	assign := func(lhs []ast.Expr, rhs []ast.Expr) {
		if len(lhs) == len(rhs) {
			for i := range lhs {
				if v := varOf(lhs[i]); v != nil {
					cb.defs[v] = append(cb.defs[v], rhs[i])
				}
			}
			return
		}
		if len(rhs) != 1 {
			return
		}
		call, _ := ast.Unparen(rhs[0]).(*ast.CallExpr)
		for i, l := range lhs {
			v := varOf(l)
			if v == nil {
				continue
			}
			switch {
			case i == 0:
				cb.defs[v] = append(cb.defs[v], rhs[0])
			case call != nil && isContext(v.Type()) && cb.onlyContextArg(call) != nil:
				// g, gctx := errgroup.WithContext(ctx): derived from its
				// only context argument
				cb.defs[v] = append(cb.defs[v], cb.onlyContextArg(call))
			default:
				cb.defs[v] = append(cb.defs[v], nil) // a non-first result: unknown
			}
		}
		if call != nil && len(lhs) == 2 && isContextDerive(cb.c.callee(call)) {
			if ctx, cancel := varOf(lhs[0]), varOf(lhs[1]); ctx != nil && cancel != nil {
				cb.cancelOf[ctx] = cancel
			}
		}
	}
	// where the callback waits for the leader context, and the deferred or
	// asynchronous regions
	ast.Inspect(cb.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.DeferStmt:
			cb.later = append(cb.later, n)
		case *ast.FuncLit:
			cb.later = append(cb.later, n)
		case *ast.UnaryExpr:
			if n.Op == token.ARROW && cb.leader != nil {
				if call, ok := ast.Unparen(n.X).(*ast.CallExpr); ok {
					if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Done" {
						if id, ok := ast.Unparen(sel.X).(*ast.Ident); ok && info.Uses[id] == cb.leader {
							cb.waits = append(cb.waits, n.Pos())
						}
					}
				}
			}
		}
		return true
	})
	ast.Inspect(cb.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			assign(n.Lhs, n.Rhs)
		case *ast.ValueSpec:
			lhs := make([]ast.Expr, len(n.Names))
			for i, id := range n.Names {
				lhs[i] = id
			}
			if len(n.Values) > 0 {
				assign(lhs, n.Values)
			}
		case *ast.CallExpr:
			// defer cancel(), go watch(ctx, cancel), or cancel() once the
			// leader context is done: the callback ends that context
			// itself; close(stopCh) likewise
			if v := varOf(n.Fun); v != nil && cb.endsWithLeadership(n.Pos()) {
				cb.deferred[v] = true
			}
			isClose := false
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok {
				if b, ok := info.Uses[id].(*types.Builtin); ok && b.Name() == "close" {
					isClose = true
				}
			}
			for _, a := range n.Args {
				if v := varOf(a); v != nil {
					if isClose && !cb.endsWithLeadership(n.Pos()) {
						continue
					}
					if isClose {
						cb.closed[v] = true
					} else if _, isSig := v.Type().Underlying().(*types.Signature); isSig {
						cb.deferred[v] = true
					}
				}
			}
		case *ast.SendStmt:
			if v := varOf(n.Chan); v != nil {
				cb.closed[v] = true
			}
		}
		return true
	})
}

// endsWithLeadership reports whether a call at pos runs when the callback
// returns or asynchronously (in a defer or a function literal), or after the
// callback has waited for the leader context to end.
func (cb *callback) endsWithLeadership(pos token.Pos) bool {
	for _, n := range cb.later {
		if n.Pos() <= pos && pos < n.End() {
			return true
		}
	}
	for _, w := range cb.waits {
		if w < pos {
			return true
		}
	}
	return false
}

// cancelledHere reports whether a context captured from the enclosing
// declaration has its cancel function called (or handed on) inside the
// callback: ctx, cancel := context.WithCancel(...) outside, cancel() inside.
func (cb *callback) cancelledHere(v *types.Var) bool {
	if cb.outer == nil || cb.outer.Body == nil || !isContext(v.Type()) {
		return false
	}
	info := cb.c.info
	found := false
	ast.Inspect(cb.outer.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || found || len(as.Lhs) != 2 || len(as.Rhs) != 1 {
			return !found
		}
		id, ok := as.Lhs[0].(*ast.Ident)
		if !ok || (info.Defs[id] != v && info.Uses[id] != v) {
			return true
		}
		if cid, ok := as.Lhs[1].(*ast.Ident); ok {
			cv, _ := info.Defs[cid].(*types.Var)
			if cv == nil {
				cv, _ = info.Uses[cid].(*types.Var)
			}
			if cv != nil && cb.deferred[cv] {
				found = true
			}
		}
		return true
	})
	return found
}

// onlyContextArg returns the single context argument of call, or nil.
func (cb *callback) onlyContextArg(call *ast.CallExpr) ast.Expr {
	var only ast.Expr
	for _, a := range call.Args {
		if isContext(cb.c.info.TypeOf(a)) {
			if only != nil {
				return nil
			}
			only = a
		}
	}
	return only
}

func (cb *callback) inScope(pos token.Pos) bool {
	return cb.scope.Pos() <= pos && pos < cb.scope.End()
}

// classify says whether e, a context or a stop channel, is bound to the
// leader context.
func (cb *callback) classify(e ast.Expr) verdict {
	e = ast.Unparen(e)
	switch e := e.(type) {
	case *ast.CallExpr:
		fn := cb.c.callee(e)
		if fn == nil {
			return verdict{}
		}
		if fn.Pkg() != nil && fn.Pkg().Path() == "context" && fn.Type().(*types.Signature).Recv() == nil {
			switch fn.Name() {
			case "Background", "TODO":
				return verdict{wrong, "context." + fn.Name() + "()"}
			case "WithoutCancel":
				if v := cb.classify(e.Args[0]); v.class == bound || v.class == unknown {
					return verdict{wrong, "context.WithoutCancel(...), which is never cancelled with the leader context"}
				}
				return cb.classify(e.Args[0])
			}
			if isContextDerive(fn) || strings.HasPrefix(fn.Name(), "With") {
				if len(e.Args) > 0 {
					return cb.classify(e.Args[0])
				}
			}
			return verdict{}
		}
		if sel, ok := ast.Unparen(e.Fun).(*ast.SelectorExpr); ok && fn.Name() == "Done" && isContext(cb.c.info.TypeOf(sel.X)) {
			v := cb.classify(sel.X)
			if v.class == wrong {
				v.why = "the Done channel of " + v.why
			}
			return v
		}
		// a helper of this package whose every return is a detached
		// context, whatever it is given (func background() context.Context
		// { return context.Background() })
		if d := cb.c.decls[fn.Origin()]; d != nil {
			if why := cb.c.detachedReturn(d, 0); why != "" {
				return verdict{wrong, fmt.Sprintf("%s(...), which returns %s", fn.Name(), why)}
			}
		}
		// a helper returning a context built from exactly one context
		// argument (logr.NewContext(ctx, l), trace.ContextWithSpan...)
		if sig, ok := fn.Type().(*types.Signature); ok && sig.Results().Len() >= 1 && isContext(sig.Results().At(0).Type()) {
			var only ast.Expr
			n := 0
			for _, a := range e.Args {
				if isContext(cb.c.info.TypeOf(a)) {
					only = a
					n++
				}
			}
			if n == 1 {
				return cb.classify(only)
			}
		}
		return verdict{}
	case *ast.Ident:
		v, _ := cb.c.info.Uses[e].(*types.Var)
		if v == nil {
			return verdict{}
		}
		return cb.classifyVar(v, e.Pos())
	}
	return verdict{}
}

// classifyVar classifies the variable v as used at pos. An assignment of a
// detached context before pos puts the work on that context on at least
// one path (ctx = context.Background() in one branch), even when v is the
// leader context itself or is also bound to it on other paths.
func (cb *callback) classifyVar(v *types.Var, pos token.Pos) verdict {
	if cb.visiting[v] {
		return verdict{}
	}
	cb.visiting[v] = true
	defer delete(cb.visiting, v)
	if cb.leader != nil && v == cb.leader {
		for _, d := range cb.defs[v] {
			if d != nil && d.Pos() < pos {
				if r := cb.classify(d); r.class == wrong {
					return verdict{wrong, fmt.Sprintf("%s, reassigned to %s on a path to this call", v.Name(), r.why)}
				}
			}
		}
		return verdict{class: bound}
	}
	if defs, ok := cb.defs[v]; ok {
		anyBound, allWrong := false, true
		var why, wrongBefore string
		for _, d := range defs {
			if d == nil {
				allWrong = false
				continue
			}
			r := cb.classify(d)
			switch r.class {
			case bound:
				anyBound = true
				allWrong = false
			case unknown:
				allWrong = false
			case wrong:
				why = r.why
				if d.Pos() < pos {
					wrongBefore = r.why
				}
			}
		}
		if anyBound && wrongBefore != "" {
			return verdict{wrong, fmt.Sprintf("%s, set to %s on a path to this call", v.Name(), wrongBefore)}
		}
		if anyBound {
			return verdict{class: bound}
		}
		if !allWrong {
			return verdict{}
		}
		if cancel := cb.cancelOf[v]; cancel != nil && cb.deferred[cancel] {
			// cancelled when the callback returns: bounded by the
			// callback's own lifetime, which we cannot judge
			return verdict{}
		}
		if v.Pos().IsValid() && !cb.inScope(v.Pos()) {
			return verdict{}
		}
		return verdict{wrong, fmt.Sprintf("%s (derived from %s)", v.Name(), why)}
	}
	if !v.Pos().IsValid() || cb.inScope(v.Pos()) {
		return verdict{} // a parameter of a nested function, a range variable...
	}
	if !isContext(v.Type()) && !isStopChan(v.Type()) {
		return verdict{}
	}
	if cb.closed[v] || cb.cancelledHere(v) {
		return verdict{} // the callback stops it itself
	}
	if v.Parent() != nil && v.Pkg() != nil && v.Parent() == v.Pkg().Scope() {
		return verdict{wrong, fmt.Sprintf("%s, a package-level %s", v.Name(), kindOf(v.Type()))}
	}
	where := "the enclosing function"
	if cb.outerName != "" {
		where = cb.outerName
	}
	return verdict{wrong, fmt.Sprintf("%s, a %s captured from %s", v.Name(), kindOf(v.Type()), where)}
}

func kindOf(t types.Type) string {
	if isContext(t) {
		return "context"
	}
	return "stop channel"
}

// isWork reports whether a call starts long-running work: a method or
// function named Run or Start (or RunXxx, StartXxx), a scheduler loop of
// the knowledge base, or any call made by a go statement.
func (c *checker) isWork(call *ast.CallExpr, inGo bool) bool {
	fn := c.callee(call)
	if fn != nil && perReplicaName(fn.Name()) {
		return false
	}
	if fn != nil {
		// tracer.Start(ctx, name) (context.Context, Span) derives a
		// context; it runs nothing
		res := fn.Type().(*types.Signature).Results()
		for i := 0; i < res.Len(); i++ {
			if isContext(res.At(i).Type()) {
				return false
			}
		}
	}
	if inGo {
		return true
	}
	if fn == nil {
		return false
	}
	if c.p.KB.Match(schedulers, fn) != nil {
		return true
	}
	return workName(fn.Name())
}

// perReplicaName reports names of per-replica plumbing that a leader
// callback may start on the process context without harm: servers,
// listeners, health, metrics and debug endpoints.
func perReplicaName(name string) bool {
	l := strings.ToLower(name)
	for _, w := range []string{"serve", "listen", "health", "metric", "probe", "pprof", "debug"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

func workName(name string) bool {
	for _, p := range []string{"Run", "Start"} {
		rest, ok := strings.CutPrefix(name, p)
		if !ok {
			continue
		}
		if rest == "" {
			return true
		}
		r, _ := utf8.DecodeRuneInString(rest)
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

func isContext(t types.Type) bool {
	n := leadership.NamedOf(t)
	if n == nil || n.Obj().Pkg() == nil {
		return false
	}
	return n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

func isStopChan(t types.Type) bool {
	if t == nil {
		return false
	}
	ch, ok := types.Unalias(t).Underlying().(*types.Chan)
	if !ok {
		return false
	}
	s, ok := ch.Elem().Underlying().(*types.Struct)
	return ok && s.NumFields() == 0
}

func isContextDerive(fn *types.Func) bool {
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" {
		return false
	}
	switch fn.Name() {
	case "WithCancel", "WithCancelCause", "WithTimeout", "WithTimeoutCause", "WithDeadline", "WithDeadlineCause":
		return true
	}
	return false
}
