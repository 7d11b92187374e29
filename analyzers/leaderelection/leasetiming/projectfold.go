package leasetiming

import (
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
)

// This file folds the values of a project lease's renewal chain (see
// projectlease.go) to constant durations over the SSA form.

// dval is one constant duration and where it was written.
type dval struct {
	ns  int64
	pos token.Pos // the store, call or literal that holds it
}

// dset is what a value folds to: its constants, and whether some path is
// unknown.
type dset struct {
	vals    []dval
	unknown bool
}

func (d dset) union(o dset) dset {
	return dset{vals: append(append([]dval(nil), d.vals...), o.vals...), unknown: d.unknown || o.unknown}
}

func unknownSet() dset { return dset{unknown: true} }

func isContext(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

// ctxTimeout folds d of ctx, _ := context.WithTimeout(parent, d), and
// returns the WithTimeout call's position.
func (s *projScan) ctxTimeout(ctx ssa.Value, e env) (dset, token.Pos) {
	ex, ok := ctx.(*ssa.Extract)
	if !ok || ex.Index != 0 {
		return unknownSet(), token.NoPos
	}
	call, ok := ex.Tuple.(*ssa.Call)
	if !ok {
		return unknownSet(), token.NoPos
	}
	g := call.Call.StaticCallee()
	if g == nil || g.Pkg == nil || g.Pkg.Pkg.Path() != "context" || g.Name() != "WithTimeout" || len(call.Call.Args) != 2 {
		return unknownSet(), token.NoPos
	}
	d := s.eval(call.Call.Args[1], e, 0)
	for i := range d.vals {
		if !d.vals[i].pos.IsValid() {
			d.vals[i].pos = call.Pos()
		}
	}
	return d, call.Pos()
}

// requestTTL folds the TTL an RPC argument carries: a duration argument,
// or a field of a request literal (&Req{TTL: d}, &Req{Seconds:
// int64(d.Seconds())}) that is not named like a wait. Plain numbers are
// not read: their unit is unknown.
func (s *projScan) requestTTL(a ssa.Value, e env) dset {
	if isDurationType(a.Type()) {
		return s.eval(a, e, 0)
	}
	alloc, ok := a.(*ssa.Alloc)
	if !ok {
		return dset{}
	}
	var out dset
	for _, r := range *alloc.Referrers() {
		fa, ok := r.(*ssa.FieldAddr)
		if !ok || fa.X != alloc {
			continue
		}
		f := fieldOf(fa)
		if f == nil || lockfacts.WaitName(f.Name()) {
			continue
		}
		for _, u := range *fa.Referrers() {
			st, ok := u.(*ssa.Store)
			if !ok || st.Addr != fa {
				continue
			}
			if d, ok := durationOf(st.Val); ok {
				out = out.union(s.eval(d, e, 0))
			}
		}
	}
	return out
}

// durationOf finds the duration behind a request field's value: the value
// itself, or d of int64(d.Seconds()) and int64(d.Milliseconds()) scaled
// back by the unit (the TTL is compared as a duration).
func durationOf(v ssa.Value) (ssa.Value, bool) {
	if isDurationType(v.Type()) {
		return v, true
	}
	if cv, ok := v.(*ssa.Convert); ok {
		v = cv.X
	}
	call, ok := v.(*ssa.Call)
	if !ok {
		return nil, false
	}
	g := call.Call.StaticCallee()
	if g == nil || g.Signature.Recv() == nil || !isDurationType(g.Signature.Recv().Type()) || len(call.Call.Args) != 1 {
		return nil, false
	}
	switch g.Name() {
	case "Seconds", "Milliseconds":
		return call.Call.Args[0], true
	}
	return nil, false
}

// eval folds v to its constant durations in e.
func (s *projScan) eval(v ssa.Value, e env, depth int) dset {
	if depth > 16 {
		return unknownSet()
	}
	switch v := v.(type) {
	case *ssa.Const:
		if v.Value == nil || v.Value.Kind() != constant.Int {
			return unknownSet()
		}
		n, ok := constant.Int64Val(v.Value)
		if !ok {
			return unknownSet()
		}
		return dset{vals: []dval{{ns: n}}}
	case *ssa.Parameter, *ssa.FreeVar:
		if d, ok := e[v]; ok {
			return d
		}
		return unknownSet()
	case *ssa.Phi:
		var out dset
		for _, ed := range v.Edges {
			if ed == v {
				continue
			}
			out = out.union(s.eval(ed, e, depth+1))
		}
		return out
	case *ssa.ChangeType:
		return s.eval(v.X, e, depth+1)
	case *ssa.Convert:
		if b, ok := v.Type().Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 {
			return unknownSet()
		}
		if b, ok := v.X.Type().Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 {
			return unknownSet()
		}
		return s.eval(v.X, e, depth+1)
	case *ssa.UnOp:
		if v.Op != token.MUL {
			return unknownSet()
		}
		switch x := v.X.(type) {
		case *ssa.FieldAddr:
			if d, ok := s.fields[fieldOf(x)]; ok {
				return d
			}
		case *ssa.FreeVar:
			// a captured variable: the closure reads the caller's cell, bound
			// in e, unless the closure writes it too
			for _, r := range *x.Referrers() {
				if st, ok := r.(*ssa.Store); ok && st.Addr == x {
					return unknownSet()
				}
			}
			if d, ok := e[x]; ok {
				return d
			}
		case *ssa.Alloc:
			return s.eval(x, e, depth+1)
		}
		return unknownSet()
	case *ssa.Alloc:
		// a local cell (a variable a closure captures): what is stored in it
		var out dset
		for _, r := range *v.Referrers() {
			switch r := r.(type) {
			case *ssa.Store:
				if r.Addr != v {
					return unknownSet()
				}
				out = out.union(s.eval(r.Val, e, depth+1))
			case *ssa.UnOp, *ssa.MakeClosure, *ssa.DebugRef:
			default:
				return unknownSet()
			}
		}
		if len(out.vals) == 0 {
			return unknownSet()
		}
		return out
	case *ssa.BinOp:
		x, y := s.eval(v.X, e, depth+1), s.eval(v.Y, e, depth+1)
		out := dset{unknown: x.unknown || y.unknown}
		if len(x.vals)*len(y.vals) > 16 {
			return unknownSet()
		}
		for _, a := range x.vals {
			for _, b := range y.vals {
				var r int64
				switch v.Op {
				case token.ADD:
					r = a.ns + b.ns
				case token.SUB:
					r = a.ns - b.ns
				case token.MUL:
					r = a.ns * b.ns
				case token.QUO:
					if b.ns == 0 {
						return unknownSet()
					}
					r = a.ns / b.ns
				default:
					return unknownSet()
				}
				pos := a.pos
				if !pos.IsValid() {
					pos = b.pos
				}
				out.vals = append(out.vals, dval{ns: r, pos: pos})
			}
		}
		return out
	}
	return unknownSet()
}
