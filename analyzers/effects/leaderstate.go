package effects

// Raft leadership as coordination: a comparison of a raft node's state with
// the library's leader constant (hashicorp/raft r.State() == raft.Leader,
// etcd's n.Status().RaftState == raft.StateLeader), named in the knowledge
// base with kind leader-state. Only a raft leader commits log entries, so
// work that the comparison gates on every pass runs on one replica at a
// time. The state query alone (logged, stored, compared with Follower) says
// nothing, and neither does a comparison whose answer gates nothing.

import (
	"go/ast"
	"go/token"
	"go/types"
)

// leaderStateKind is the knowledge-base kind of a raft library's constant
// for the leader state.
const leaderStateKind = "leader-state"

// leaderStateEvent returns the coordination event of a comparison with a
// raft leader constant whose answer gates work here or is returned to the
// caller, or false.
func (r *Result) leaderStateEvent(cmp *ast.BinaryExpr) (Event, bool) {
	c := r.leaderConst(cmp)
	if c == nil {
		return Event{}, false
	}
	g := r.gateOf(cmp)
	if !g.checked {
		return Event{}, false
	}
	if !g.returned && r.boolDecided(cmp) {
		g.returned = true
	}
	desc := "raft leadership (" + types.ExprString(cmp) + ")"
	return Event{Node: cmp, Coordination: desc, Gate: g.returned}, true
}

// leaderConst returns the leader-state constant cmp compares with (== or
// !=), or nil.
func (r *Result) leaderConst(cmp *ast.BinaryExpr) *types.Const {
	if cmp.Op != token.EQL && cmp.Op != token.NEQ {
		return nil
	}
	for _, side := range []ast.Expr{cmp.X, cmp.Y} {
		var id *ast.Ident
		switch e := ast.Unparen(side).(type) {
		case *ast.Ident:
			id = e
		case *ast.SelectorExpr:
			id = e.Sel
		default:
			continue
		}
		c, ok := r.pass.TypesInfo.Uses[id].(*types.Const)
		if !ok || c.Pkg() == nil || c.Parent() != c.Pkg().Scope() {
			continue
		}
		if c.Pkg() == r.pass.Pkg {
			// the library's own state tests (Apply answering
			// ErrNotLeader on a follower) are its machinery: they
			// make no caller the leader
			continue
		}
		if r.isLeaderState(c) {
			return c
		}
	}
	return nil
}

// isLeaderState: the knowledge base names c as a leader-state constant.
// (Match looks up functions only; constants are looked up here, so no call
// is ever taken for one.)
func (r *Result) isLeaderState(c *types.Const) bool {
	if !r.kb.Knows(c.Pkg().Path()) {
		return false
	}
	for _, a := range r.kb.Coordinators {
		if a.Kind == leaderStateKind && a.Recv == "" && a.Pkg == c.Pkg().Path() && a.Name == c.Name() {
			return true
		}
	}
	return false
}

// boolDecided: the enclosing function returns a bool that the comparison
// decides: an if whose condition holds the comparison returns a constant
// bool (if r.State() == raft.Leader { return true } ... return false). The
// caller then learns from that result whether this replica leads.
func (r *Result) boolDecided(cmp *ast.BinaryExpr) bool {
	body := r.enclosingBody(cmp)
	if body == nil {
		return false
	}
	info := r.pass.TypesInfo
	decided := false
	ast.Inspect(body, func(n ast.Node) bool {
		if decided {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IfStmt:
			if n.Cond.Pos() > cmp.Pos() || cmp.End() > n.Cond.End() {
				return true
			}
			ast.Inspect(n.Body, func(m ast.Node) bool {
				switch m := m.(type) {
				case *ast.FuncLit:
					return false
				case *ast.ReturnStmt:
					for _, res := range m.Results {
						if tv, ok := info.Types[res]; ok && tv.Value != nil && isBool(tv.Type) {
							decided = true
						}
					}
				}
				return !decided
			})
		}
		return !decided
	})
	return decided
}

func isBool(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsBoolean != 0
}
