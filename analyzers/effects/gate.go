package effects

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// gateUse is what the code does with the answer of a claim (a conditional
// write, a try-lock): checks it before the work, or returns it to its
// caller, whose check then decides.
type gateUse struct {
	checked  bool // the answer gates work here, or is returned to be checked
	returned bool // the answer is returned: the caller must check it
}

// gate follows the answer of call through the enclosing function: its
// results, values scanned from it (row.Scan(&ok)), values computed from
// those (n, _ := res.RowsAffected(); claimed := n == 1). The claim gates
// the work when a later if (or switch) tests one of them and either leaves
// (return, continue, break) or holds work in its body, or when a later
// write is keyed by it (the IDs an UPDATE ... RETURNING claimed, handed to
// the statement that finishes those rows): a claimed row is this
// replica's alone, so a write keyed by the claim's answer touches only
// what this replica won. A claim whose answer is dropped or only logged
// coordinates nothing. Errors do not count: `if err != nil { return }`
// says the statement ran, not that this replica won.
func (r *Result) gate(call *ast.CallExpr) gateUse {
	return r.gateOf(call)
}

// gateOf is gate for any expression whose value is the answer: a call, or
// a comparison of a raft node's state with the leader constant
// (leaderstate.go).
func (r *Result) gateOf(call ast.Expr) gateUse {
	body := r.enclosingBody(call)
	if body == nil {
		return gateUse{}
	}
	info := r.pass.TypesInfo
	tainted := map[types.Object]bool{}
	mentions := func(e ast.Node) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if n != nil && n == ast.Node(call) {
				found = true
				return false
			}
			switch n := n.(type) {
			case *ast.Ident:
				if tainted[info.ObjectOf(n)] {
					found = true
				}
			}
			return !found
		})
		return found
	}
	// errs: the errors the answer's call returned. For a claim that
	// returns a row (QueryRow ... RETURNING), sql.ErrNoRows is the answer
	// "nothing claimed", as redis.Nil is for a pop; any other error only
	// says the statement failed.
	errs := map[types.Object]bool{}
	taint := func(e ast.Expr) bool {
		if u, isAddr := ast.Unparen(e).(*ast.UnaryExpr); isAddr && u.Op == token.AND {
			e = u.X
		}
		changed := false
		if sel, isSel := ast.Unparen(e).(*ast.SelectorExpr); isSel {
			// Scan(&m.ID, &m.Body) into a message declared here: the
			// message is the claimed row, so m carries the answer too.
			if base, ok := ast.Unparen(sel.X).(*ast.Ident); ok {
				if v, ok := info.ObjectOf(base).(*types.Var); ok && !v.IsField() && body.Pos() <= v.Pos() && v.Pos() < body.End() && !tainted[v] {
					tainted[v], changed = true, true
				}
			}
			e = sel.Sel // s.won = ok: the field carries the answer
		}
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return changed
		}
		obj := info.ObjectOf(id)
		if obj != nil && isError(obj.Type()) && !errs[obj] {
			errs[obj] = true
			return true
		}
		if obj == nil || tainted[obj] || isError(obj.Type()) {
			return changed
		}
		tainted[obj] = true
		return true
	}
	// noRows: the condition tests one of errs against sql.ErrNoRows.
	noRows := func(cond ast.Expr) bool {
		withErr, withNoRows := false, false
		ast.Inspect(cond, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				obj := info.ObjectOf(id)
				withErr = withErr || errs[obj]
				withNoRows = withNoRows || isSQLErrNoRows(obj) || isRedisNil(obj)
			}
			return true
		})
		return withErr && withNoRows
	}
	// Taint to a fixed point: assignments whose right side mentions the
	// answer, ranges over it, and pointers handed to a method of it (Scan).
	for changed := true; changed; {
		changed = false
		ast.Inspect(body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, rhs := range n.Rhs {
					if mentions(rhs) {
						for _, lhs := range n.Lhs {
							changed = taint(lhs) || changed
						}
					}
				}
			case *ast.ValueSpec:
				for _, v := range n.Values {
					if mentions(v) {
						for _, name := range n.Names {
							changed = taint(name) || changed
						}
					}
				}
			case *ast.RangeStmt:
				if mentions(n.X) {
					for _, kv := range []ast.Expr{n.Key, n.Value} {
						if kv != nil {
							changed = taint(kv) || changed
						}
					}
				}
			case *ast.CallExpr:
				if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok && mentions(sel.X) {
					for _, a := range n.Args {
						if u, ok := ast.Unparen(a).(*ast.UnaryExpr); ok && u.Op == token.AND {
							changed = taint(u) || changed
						}
					}
				}
			}
			return true
		})
	}
	var use gateUse
	noRowsChecked := false
	ast.Inspect(body, func(n ast.Node) bool {
		if use.checked {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // a closure's check does not gate this function's work
		case *ast.IfStmt:
			if n.End() > call.Pos() && mentions(n.Cond) && (returnsEarly(n.Body) || len(r.Scan(n.Body).Effects()) > 0) {
				use.checked = true
			}
			// if errors.Is(err, sql.ErrNoRows) { continue }: no row was
			// claimed, so what follows runs only on the replica that won.
			// Kept apart so that a row returned to the caller later in
			// the function still makes the caller's check decide.
			if n.End() > call.Pos() && noRows(n.Cond) && returnsEarly(n.Body) {
				noRowsChecked = true
			}
		case *ast.SwitchStmt:
			if n.Tag != nil && n.End() > call.Pos() && mentions(n.Tag) {
				use.checked = true
			}
		case *ast.CaseClause:
			// switch { case !won: return }
			for _, x := range n.List {
				if n.End() > call.Pos() && mentions(x) && (returnsEarly(&ast.BlockStmt{List: n.Body}) || len(r.Scan(&ast.BlockStmt{List: n.Body}).Effects()) > 0) {
					use.checked = true
				}
			}
		case *ast.CallExpr:
			// A write keyed by the answer: an argument (other than the
			// receiver) carries what the claim returned.
			if n.Pos() > call.End() && r.keyedBy(n, mentions) {
				use.checked = true
			}
		case *ast.ReturnStmt:
			for _, res := range n.Results {
				if n.End() > call.Pos() && mentions(res) && !isError(info.TypeOf(res)) {
					use.checked, use.returned = true, true
				}
			}
		}
		return true
	})
	use.checked = use.checked || noRowsChecked
	if use.checked && !use.returned && r.answerDecidesResult(body, call, mentions) {
		use.returned = true
	}
	return use
}

// answerDecidesResult: the function returns the answer in another form
// (switch n { case 0: return "", nil; case 1: return setID, nil }, or
// if n == 0 { return "", nil } ... return setID, nil): among the returns
// the answer decides, one gives a result the zero value (nothing claimed)
// and another gives it a value that is not. The caller then learns from
// that result whether this replica won, and must check it.
func (r *Result) answerDecidesResult(body *ast.BlockStmt, call ast.Expr, mentions func(ast.Node) bool) bool {
	type region struct{ from, to token.Pos }
	var regions []region
	add := func(n ast.Node) {
		if n != nil {
			regions = append(regions, region{n.Pos(), n.End()})
		}
	}
	var decided []*ast.ReturnStmt
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IfStmt:
			if n.Pos() > call.Pos() && mentions(n.Cond) {
				add(n.Body)
				if n.Else != nil {
					add(n.Else)
				}
			}
		case *ast.SwitchStmt:
			if n.Pos() > call.Pos() && n.Tag != nil && mentions(n.Tag) {
				add(n.Body)
			}
		case *ast.CaseClause:
			for _, x := range n.List {
				if n.Pos() > call.Pos() && mentions(x) {
					add(n)
				}
			}
		case *ast.BlockStmt:
			// what follows `if n == 0 { return }` runs only when it says won
			for i, st := range n.List {
				if ifs, ok := st.(*ast.IfStmt); ok && ifs.Pos() > call.Pos() && mentions(ifs.Cond) && returnsEarly(ifs.Body) && i+1 < len(n.List) {
					regions = append(regions, region{n.List[i+1].Pos(), n.End()})
				}
			}
		case *ast.ReturnStmt:
			if n.Pos() > call.End() {
				decided = append(decided, n)
			}
		}
		return true
	})
	in := func(ret *ast.ReturnStmt) bool {
		for _, g := range regions {
			if g.from <= ret.Pos() && ret.End() <= g.to {
				return true
			}
		}
		return false
	}
	info := r.pass.TypesInfo
	zero, other := map[int]bool{}, map[int]bool{}
	for _, ret := range decided {
		if !in(ret) {
			continue
		}
		for i, res := range ret.Results {
			if isError(info.TypeOf(res)) {
				continue
			}
			if zeroExpr(info, res) {
				zero[i] = true
			} else {
				other[i] = true
			}
		}
	}
	for i := range zero {
		if other[i] {
			return true
		}
	}
	return false
}

// zeroExpr: nil, or a constant zero value ("", 0, false).
func zeroExpr(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	if !ok {
		return false
	}
	if tv.IsNil() {
		return true
	}
	return tv.Value != nil && isZeroConstValue(tv.Value)
}

// keyedBy: call has an effect and one of its arguments mentions the
// claim's answer.
func (r *Result) keyedBy(call *ast.CallExpr, mentions func(ast.Node) bool) bool {
	keyed := false
	for _, a := range call.Args {
		if mentions(a) {
			keyed = true
		}
	}
	return keyed && len(r.Scan(call).Effects()) > 0
}

// returnsEarly: the block leaves (return, continue, break, goto, panic), so
// what follows its if runs only on the other branch.
func returnsEarly(b *ast.BlockStmt) bool {
	for _, s := range b.List {
		switch s := s.(type) {
		case *ast.ReturnStmt, *ast.BranchStmt:
			return true
		case *ast.ExprStmt:
			if c, ok := s.X.(*ast.CallExpr); ok {
				if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "panic" {
					return true
				}
			}
		}
	}
	return false
}

// isSQLErrNoRows: obj is database/sql's ErrNoRows.
func isSQLErrNoRows(obj types.Object) bool {
	v, ok := obj.(*types.Var)
	return ok && v.Name() == "ErrNoRows" && v.Pkg() != nil && v.Pkg().Path() == "database/sql" && v.Parent() == v.Pkg().Scope()
}

// isRedisNil: obj is a Redis client's Nil reply (go-redis redis.Nil,
// redigo redis.ErrNil): the key or the list was empty, nothing was taken.
func isRedisNil(obj types.Object) bool {
	if obj == nil || obj.Pkg() == nil || obj.Parent() != obj.Pkg().Scope() || !isRedis(obj.Pkg().Path()) {
		return false
	}
	return obj.Name() == "Nil" || obj.Name() == "ErrNil"
}

func isError(t types.Type) bool {
	return t != nil && types.Identical(t, types.Universe.Lookup("error").Type())
}

// enclosingBody returns the body of the innermost function (declaration or
// literal) around n.
func (r *Result) enclosingBody(n ast.Node) *ast.BlockStmt {
	for _, f := range r.pass.Files {
		if f.FileStart <= n.Pos() && n.End() <= f.FileEnd {
			path, _ := astutil.PathEnclosingInterval(f, n.Pos(), n.End())
			for _, p := range path {
				switch p := p.(type) {
				case *ast.FuncLit:
					return p.Body
				case *ast.FuncDecl:
					return p.Body
				}
			}
		}
	}
	return nil
}
