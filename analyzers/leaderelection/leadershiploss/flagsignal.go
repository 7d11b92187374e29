package leadershiploss

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// Leadership reduced to a value on a channel: the start callback drops its
// leader context and only sends true on a channel, the stop callback only
// sends false on the same channel. Whoever receives the value keeps it in a
// local and starts goroutines while it is true. The false that follows a
// lost lease stops new goroutines, not the ones running: a goroutine that
// takes no context and reads none has nothing to stop it, so it goes on
// beside the next leader. The report is at the go statement (the call that
// starts the work on no leader context), once per function started.
//
// Silent when either callback does anything but send a constant on the
// channel and log (the start callback waiting on its context, an exit, a
// cancel, a close may stop the work); when the channel's receivers cannot
// be found in the package (a parameter whose callers pass something else);
// when the goroutine is handed a context or a channel, or its body reads
// one (a field context a cancel elsewhere ends); when the goroutine's body
// is not in the package or only logs.

// checkFlagSignal checks one callback site for leadership sent as a value.
func (c *checker) checkFlagSignal(s *site) {
	start, stop := c.closure(s.fd, s.start), c.closure(s.fd, s.stop)
	if start == nil || stop == nil {
		return
	}
	ch, startAt := c.onlySend(start, true)
	if ch == nil {
		return
	}
	if ch2, _ := c.onlySend(stop, false); ch2 != ch {
		return
	}
	stopAt := stop.Body.Rbrace
	if _, at := c.onlySend(stop, false); at.IsValid() {
		stopAt = at
	}
	for _, r := range c.flagReceivers(s.fd, ch) {
		c.reportFlagWork(r, startAt, stopAt)
	}
}

// onlySend returns the channel a callback body sends want on, when its
// statements are that one send of a boolean constant and logging calls.
func (c *checker) onlySend(lit *ast.FuncLit, want bool) (*types.Var, token.Pos) {
	var ch *types.Var
	var at token.Pos
	for _, st := range lit.Body.List {
		switch st := st.(type) {
		case *ast.SendStmt:
			tv, ok := c.info.Types[st.Value]
			if ch != nil || !ok || tv.Value == nil || tv.Value.Kind() != constant.Bool || constant.BoolVal(tv.Value) != want {
				return nil, token.NoPos
			}
			if ch = c.varOf(st.Chan); ch == nil {
				return nil, token.NoPos
			}
			at = st.Pos()
		case *ast.ExprStmt:
			call, ok := st.X.(*ast.CallExpr)
			if !ok || !c.logCall(call) {
				return nil, token.NoPos
			}
		default:
			return nil, token.NoPos
		}
	}
	return ch, at
}

// varOf resolves an identifier or a field selector to its variable.
func (c *checker) varOf(e ast.Expr) *types.Var {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		v, _ := c.info.Uses[e].(*types.Var)
		return v
	case *ast.SelectorExpr:
		if sel := c.info.Selections[e]; sel != nil && sel.Kind() == types.FieldVal {
			v, _ := sel.Obj().(*types.Var)
			return v
		}
	}
	return nil
}

// flagReceiver is a function that receives the leadership value, and the
// variable that holds the channel there.
type flagReceiver struct {
	fd *ast.FuncDecl
	ch *types.Var
}

// flagReceivers finds where the channel is received: for a field or a
// package variable, every function of the package; for a local of the
// function that configures the election, that function; for one of its
// parameters, the callers that pass a local of their own.
func (c *checker) flagReceivers(fd *ast.FuncDecl, ch *types.Var) []flagReceiver {
	var out []flagReceiver
	if ch.IsField() || ch.Parent() == c.p.Pkg.Scope() {
		for _, d := range c.decls {
			if d.Body != nil {
				out = append(out, flagReceiver{d, ch})
			}
		}
		return out
	}
	if fd == nil || fd.Body == nil {
		return nil
	}
	idx := c.paramOf(fd, ch)
	if idx < 0 {
		return []flagReceiver{{fd, ch}}
	}
	self, _ := c.info.Defs[fd.Name].(*types.Func)
	for _, d := range c.decls {
		if d.Body == nil {
			continue
		}
		ast.Inspect(d.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || self == nil || c.callee(call) != self || idx >= len(call.Args) {
				return true
			}
			if v := c.varOf(call.Args[idx]); v != nil && !v.IsField() && v.Pos() >= d.Pos() && v.Pos() < d.End() {
				out = append(out, flagReceiver{d, v})
			}
			return true
		})
	}
	return out
}

// paramOf returns the index of v among fd's parameters, or -1.
func (c *checker) paramOf(fd *ast.FuncDecl, v *types.Var) int {
	i := 0
	for _, f := range fd.Type.Params.List {
		if len(f.Names) == 0 {
			i++
			continue
		}
		for _, n := range f.Names {
			if c.info.Defs[n] == v {
				return i
			}
			i++
		}
	}
	return -1
}

// reportFlagWork reports, in one receiver, the goroutines started while a
// received leadership value is true that nothing can stop.
func (c *checker) reportFlagWork(r flagReceiver, startAt, stopAt token.Pos) {
	flags := map[types.Object]token.Pos{} // local holding the value -> the receive
	ast.Inspect(r.fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == 1 && len(n.Rhs) == 1 && c.receives(n.Rhs[0], r.ch) {
				if id, ok := n.Lhs[0].(*ast.Ident); ok {
					if o := c.objOf(id); o != nil {
						flags[o] = n.Pos()
					}
				}
			}
		case *ast.RangeStmt:
			if c.varOf(n.X) == r.ch {
				if id, ok := n.Key.(*ast.Ident); ok {
					if o := c.objOf(id); o != nil {
						flags[o] = n.Pos()
					}
				}
			}
		}
		return true
	})
	if len(flags) == 0 {
		return
	}
	done := map[string]bool{}
	ast.Inspect(r.fd.Body, func(n ast.Node) bool {
		ifs, ok := n.(*ast.IfStmt)
		if !ok {
			return true
		}
		flag := c.guardFlag(ifs.Cond, flags)
		if flag == nil {
			return true
		}
		ast.Inspect(ifs.Body, func(m ast.Node) bool {
			g, ok := m.(*ast.GoStmt)
			if !ok {
				return true
			}
			name, stoppable := c.flagWork(g.Call)
			if stoppable || done[name] {
				return true
			}
			done[name] = true
			related := []analysis.RelatedInformation{
				rule.Related(posNode(startAt), "OnStartedLeading drops its leader context and only sends true"),
				rule.Related(posNode(stopAt), "OnStoppedLeading only sends false: work already started does not see it"),
				rule.Related(posNode(flags[flag]), "the leadership value is received here"),
			}
			c.p.Reportf(g.Call, related,
				"leader work %s is started while %s is true, a value the election sends after dropping its leader context; it takes and reads no context, so when this replica loses the lease nothing stops it (the false that follows stops only new work) and it goes on beside the new leader: on N replicas two leaders act at once; run the work inside OnStartedLeading on its context (or one derived from it), or use the elector package whose work context ends with the lease",
				name, flag.Name())
			return true
		})
		return true
	})
}

func (c *checker) objOf(id *ast.Ident) types.Object {
	if o := c.info.Defs[id]; o != nil {
		return o
	}
	return c.info.Uses[id]
}

// receives reports whether e is a receive from the channel ch.
func (c *checker) receives(e ast.Expr, ch *types.Var) bool {
	u, ok := ast.Unparen(e).(*ast.UnaryExpr)
	return ok && u.Op == token.ARROW && c.varOf(u.X) == ch
}

// guardFlag returns the flag a condition requires to be true: the flag
// itself, or an operand of a chain of &&.
func (c *checker) guardFlag(cond ast.Expr, flags map[types.Object]token.Pos) types.Object {
	switch e := ast.Unparen(cond).(type) {
	case *ast.Ident:
		if o := c.info.Uses[e]; o != nil {
			if _, ok := flags[o]; ok {
				return o
			}
		}
	case *ast.BinaryExpr:
		if e.Op == token.LAND {
			if o := c.guardFlag(e.X, flags); o != nil {
				return o
			}
			return c.guardFlag(e.Y, flags)
		}
	}
	return nil
}

// flagWork names the work a go statement starts and says whether something
// may stop it: a context or channel handed to it, a context its body reads
// or a channel it receives from, a body out of sight, a body that only
// logs.
func (c *checker) flagWork(call *ast.CallExpr) (string, bool) {
	for _, a := range call.Args {
		if t := c.info.TypeOf(a); isContext(t) || isChan(t) {
			return "", true
		}
	}
	var body *ast.BlockStmt
	name := "a goroutine literal"
	if lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok {
		body = lit.Body
	} else if fn := c.callee(call); fn != nil {
		if d := c.decls[fn]; d != nil {
			body = d.Body
		}
		name = calleeName(call)
	}
	if body == nil {
		return "", true
	}
	stoppable, works := false, false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident, *ast.SelectorExpr:
			// a context read anywhere may be one a cancel elsewhere ends
			if isContext(c.info.TypeOf(n.(ast.Expr))) {
				stoppable = true
			}
		case *ast.UnaryExpr:
			// a receive may be a stop channel; a send is not
			if n.Op == token.ARROW {
				stoppable = true
			}
		case *ast.RangeStmt:
			if isChan(c.info.TypeOf(n.X)) {
				stoppable = true
			}
		case *ast.CallExpr:
			if tv, ok := c.info.Types[n.Fun]; (!ok || !tv.IsType()) && !c.logCall(n) {
				works = true
			}
		}
		return !stoppable
	})
	return name, stoppable || !works
}
