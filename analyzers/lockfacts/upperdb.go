package lockfacts

import (
	"go/ast"
	"go/types"
	"strings"

	"github.com/gatesift/gatesift-vet/signals"
)

// This file reads the rows an upper/db v4 chain inserts or deletes:
//
//	sess.SQL().InsertInto(t).Values(row).Exec()
//	sess.SQL().DeleteFrom(t).Where(db.Cond{"name": n}).And(...).Exec()
//	sess.Collection(t).Insert(row)
//	sess.Collection(t).Find(db.Cond{"name": n}).Delete()
//
// The chain is read backwards from the call that runs it (upper-exec) to
// the call that names its table. A condition is read when it is a db.Cond
// literal with constant column keys ("name", "time <") or constant SQL text
// with placeholders; any other condition (a variable, db.Or, a call the
// knowledge base does not name) makes the delete unknown, since it may be
// the owner test the rule looks for.

// upperRow reads the upper/db chain that exec runs, or returns nil.
func upperRow(info *types.Info, kb *signals.Knowledge, exec *ast.CallExpr) *RowOp {
	op := &RowOp{Call: exec, What: "Exec"}
	if sel, ok := ast.Unparen(exec.Fun).(*ast.SelectorExpr); ok {
		op.What = sel.Sel.Name
	}
	var conds []string
	var row types.Type
	var columns []string
	unknown := false
	var table ast.Expr
	for e := ast.Expr(exec); table == nil; {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return nil // the chain is built elsewhere: not read
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return nil
		}
		api := (*signals.API)(nil)
		if fn := Callee(info, call); fn != nil {
			api = kb.Match(signals.Locks, fn)
		}
		kind := ""
		if api != nil {
			kind = api.Kind
		}
		switch kind {
		case "upper-exec":
			switch {
			case sel.Sel.Name == "Delete":
				op.Verb = "delete"
			case sel.Sel.Name == "Insert":
				op.Verb = "insert"
				if i, ok := api.Arg("row"); ok && i < len(call.Args) {
					row = info.TypeOf(call.Args[i])
				}
			}
		case "upper-values":
			if sel.Sel.Name == "Columns" {
				for _, a := range call.Args {
					if c, ok := StringConst(info, a); ok {
						columns = append(columns, strings.ToLower(c))
					}
				}
			} else if len(call.Args) == 1 {
				row = info.TypeOf(call.Args[0])
			}
		case "upper-where":
			c, ok := upperConds(info, call.Args)
			if !ok {
				unknown = true
			}
			conds = append(conds, c...)
		case "upper-insert", "upper-delete", "upper-table":
			if kind == "upper-insert" {
				op.Verb = "insert"
			}
			if kind == "upper-delete" {
				op.Verb = "delete"
			}
			i, ok := api.Arg("table")
			if !ok || i >= len(call.Args) {
				return nil
			}
			table = call.Args[i]
		default:
			unknown = true // Or, Limit, Returning, Amend: not read
		}
		e = sel.X
	}
	if op.Verb == "" {
		return nil
	}
	if t, ok := StringConst(info, table); ok {
		op.Table = "table " + strings.ToLower(t)
	} else {
		op.Table, op.Named = "table "+types.ExprString(table), true
	}
	columns = append(columns, rowColumns(row)...)
	for _, c := range append(columns, conds...) {
		if expiryWord(c) {
			op.Expiry = true
		}
	}
	if unknown {
		return nil
	}
	if op.Verb == "insert" {
		op.Unique = true // the schema is unseen, as for SQL text
		return op
	}
	var where []string
	for _, c := range conds {
		where = append(where, c+" = ?")
	}
	op.Keyed, op.OwnerPred = predicate(strings.Join(where, " and "), nil)
	return op
}

// upperConds returns the columns the conditions args test: db.Cond
// literals' keys ("time <" tests time), or the words of constant SQL text
// (whose following arguments are its values). ok is false for a condition
// it cannot read.
func upperConds(info *types.Info, args []ast.Expr) (cols []string, ok bool) {
	for _, a := range args {
		if s, isText := StringConst(info, a); isText {
			for _, w := range sqlWord.FindAllString(strings.ToLower(s), -1) {
				if !sqlKeyword[w] {
					cols = append(cols, w)
				}
			}
			return cols, true // the rest bind its placeholders
		}
		lit, isLit := ast.Unparen(a).(*ast.CompositeLit)
		if !isLit || !isUpperCond(info.TypeOf(a)) {
			return nil, false
		}
		for _, elt := range lit.Elts {
			kv, isKV := elt.(*ast.KeyValueExpr)
			if !isKV {
				return nil, false
			}
			key, isConst := StringConst(info, kv.Key)
			if !isConst {
				return nil, false
			}
			f := strings.Fields(strings.ToLower(key))
			if len(f) == 0 {
				return nil, false
			}
			cols = append(cols, f[0])
		}
	}
	return cols, true
}

// isUpperCond: the db.Cond map of upper/db.
func isUpperCond(t types.Type) bool {
	named, ok := types.Unalias(t).(*types.Named)
	return ok && named.Obj().Name() == "Cond" && named.Obj().Pkg() != nil &&
		strings.HasPrefix(named.Obj().Pkg().Path(), "github.com/upper/db")
}

// rowColumns returns the columns of a row struct by its db tags (upper/db
// names a field's column `db:"name,omitempty"`; "-" skips it), field
// names in lower case when untagged.
func rowColumns(t types.Type) []string {
	if t == nil {
		return nil
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	var out []string
	for i := 0; i < st.NumFields(); i++ {
		col := strings.ToLower(st.Field(i).Name())
		if tag, ok := lookupTag(st.Tag(i), "db"); ok {
			name, _, _ := strings.Cut(tag, ",")
			if name == "-" {
				continue
			}
			if name != "" {
				col = name
			}
		}
		out = append(out, col)
	}
	return out
}
