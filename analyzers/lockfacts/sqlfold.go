package lockfacts

import (
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
)

// holeName stands, in folded SQL text, for the one non-constant part the
// lock rules accept: the table name of a statement built as
// "INSERT INTO " + cfg.LockTable + " (lock_id) VALUES ($1)" or with
// fmt.Sprintf("DELETE FROM %s WHERE lock_id = $1", table).
const holeName = "gatesift_hole"

// FoldSQL folds a statement argument to its text: a constant; a
// concatenation or a fmt.Sprintf with a constant format whose single
// non-constant part is returned as hole (its expression text) and written
// as holeName in the text; or a local variable of body assigned once, from
// such an expression, before use. ok is false for anything else, and for
// text with two or more non-constant parts.
func FoldSQL(info *types.Info, body *ast.BlockStmt, e ast.Expr, use token.Pos) (text, hole string, ok bool) {
	var holes []string
	var fold func(e ast.Expr, depth int) (string, bool)
	fold = func(e ast.Expr, depth int) (string, bool) {
		if s, ok := StringConst(info, e); ok {
			return s, true
		}
		if depth > 4 {
			return "", false
		}
		switch x := ast.Unparen(e).(type) {
		case *ast.BinaryExpr:
			if x.Op != token.ADD {
				return "", false
			}
			l, ok1 := fold(x.X, depth+1)
			r, ok2 := fold(x.Y, depth+1)
			return l + r, ok1 && ok2
		case *ast.CallExpr:
			fn := Callee(info, x)
			if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "fmt" || fn.Name() != "Sprintf" || len(x.Args) == 0 || x.Ellipsis.IsValid() {
				return "", false
			}
			format, ok := StringConst(info, x.Args[0])
			if !ok {
				return "", false
			}
			args := x.Args[1:]
			n := 0
			out := fmtVerb.ReplaceAllStringFunc(format, func(v string) string {
				if v == "%%" {
					return "%"
				}
				if n >= len(args) {
					ok = false
					return ""
				}
				a := args[n]
				n++
				if s, isConst := StringConst(info, a); isConst {
					return s
				}
				holes = append(holes, ExprText(a))
				return holeName
			})
			return out, ok && n == len(args)
		case *ast.Ident:
			if v := onlyAssignment(info, body, x, use); v != nil {
				return fold(v, depth+1)
			}
		}
		if t := info.TypeOf(e); t == nil || !isString(t) {
			return "", false
		}
		holes = append(holes, ExprText(e))
		return holeName, true
	}
	text, ok = fold(e, 0)
	if !ok || len(holes) > 1 {
		return "", "", false
	}
	if len(holes) > 0 {
		hole = holes[0]
	}
	return text, hole, true
}

// Folder folds a statement argument through value flow where the syntax
// alone does not show its text: a variable assigned more than once (query
// := "SELECT ..."; query = "INSERT INTO " + table + ...), a helper that
// returns it. The effects analysis implements it over SSA
// (effects.Result.FoldStatement); part names the one non-constant part by
// what it is made of ("Config.LockTable"), the same in every function.
type Folder interface {
	FoldStatement(call *ast.CallExpr, arg int, placeholder string) (text, part string, ok bool)
}

// foldArg folds argument i of call: with fold, through value flow, the
// table part named by fold (label is the part as the source writes it,
// when the syntax shows it, for messages); without, as FoldSQL folds. The
// two name a table part differently, so with fold a statement that only
// the syntax folds counts only when it is constant.
func foldArg(info *types.Info, fold Folder, body *ast.BlockStmt, call *ast.CallExpr, i int) (text, part, label string, ok bool) {
	if i < 0 || i >= len(call.Args) {
		return "", "", "", false
	}
	astText, hole, astOK := FoldSQL(info, body, call.Args[i], call.Pos())
	if t := info.TypeOf(call.Args[i]); fold == nil || t == nil || !isString(t) {
		return astText, hole, hole, astOK
	}
	if text, part, ok := fold.FoldStatement(call, i, holeName); ok {
		label = part
		if astOK && hole != "" && astText == text {
			label = hole // the syntax shows the same statement: its expression
		}
		return text, part, label, true
	}
	if astOK && hole == "" {
		return astText, "", "", true
	}
	return "", "", "", false
}

var fmtVerb = regexp.MustCompile(`%%|%[-+# 0-9.]*[a-zA-Z]`)

func isString(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// onlyAssignment returns the value a local variable of body was given, when
// it is assigned exactly once (its definition) before use and never later
// nor through its address.
func onlyAssignment(info *types.Info, body *ast.BlockStmt, id *ast.Ident, use token.Pos) ast.Expr {
	obj, ok := info.Uses[id].(*types.Var)
	if !ok || body == nil || obj.Pos() < body.Pos() || obj.Pos() >= body.End() {
		return nil
	}
	var value ast.Expr
	assigns := 0
	ast.Inspect(body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.AssignStmt:
			for i, l := range s.Lhs {
				if lid, ok := ast.Unparen(l).(*ast.Ident); ok && info.ObjectOf(lid) == obj {
					assigns++
					if len(s.Lhs) == len(s.Rhs) && s.Pos() < use {
						value = s.Rhs[i]
					}
				}
			}
		case *ast.ValueSpec:
			for i, name := range s.Names {
				if info.Defs[name] == obj {
					assigns++
					if i < len(s.Values) {
						value = s.Values[i]
					}
				}
			}
		case *ast.UnaryExpr:
			if s.Op == token.AND {
				if aid, ok := ast.Unparen(s.X).(*ast.Ident); ok && info.Uses[aid] == obj {
					assigns += 2
				}
			}
		}
		return true
	})
	if assigns != 1 {
		return nil
	}
	return value
}
