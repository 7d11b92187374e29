package effects

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// FoldStatement folds the argument i of call to its text through the value
// flow the effects read statements with (a variable assigned more than
// once, a helper that returns the text, a constant kept in a field), for
// the lock rules, which must also know which table a statement built at
// run time names. The text's one non-constant part is written as
// placeholder, and part names it by what it is made of, so that the lock's
// insert and its delete, built in two methods from the same configured name,
// name the same table: "Config.LockTable", "pq.QuoteIdentifier(Config.LockTable)".
// ok is false when no part is constant, when more than one part is not, and
// when the analysis cannot name the part.
func (r *Result) FoldStatement(call *ast.CallExpr, i int, placeholder string) (text, part string, ok bool) {
	if r.pass == nil || i < 0 || i >= len(call.Args) {
		return "", "", false
	}
	if s, ok := r.constString(call.Args[i]); ok {
		return s, "", true
	}
	fl := r.flow()
	v := fl.arg(call, i)
	text, ok = fl.text(v, 0)
	if !ok {
		return "", "", false
	}
	switch strings.Count(text, dynamicPart) {
	case 0:
		return text, "", true
	case 1:
	default:
		return "", "", false
	}
	part = fl.dynamicPartName(v, 0)
	if part == "" {
		return "", "", false
	}
	return strings.Replace(text, dynamicPart, placeholder, 1), part, true
}

// dynamicPartName names the one part of v that fl.text could not fold,
// following the same steps (conversions, concatenation, fmt.Sprintf, a
// phi whose edges name the same part); "" when the part hides behind a step
// the name would not survive (a helper's body, a field's stores).
func (fl *flow) dynamicPartName(v ssa.Value, depth int) string {
	if v == nil || depth > maxDepth {
		return ""
	}
	if _, ok := fl.text(v, depth); !ok {
		return valueName(v, 0)
	}
	switch x := unwrap(v).(type) {
	case *ssa.BinOp:
		if x.Op != token.ADD {
			return ""
		}
		for _, side := range []ssa.Value{x.X, x.Y} {
			if s, ok := fl.text(side, depth+1); !ok || strings.Contains(s, dynamicPart) {
				return fl.dynamicPartName(side, depth+1)
			}
		}
	case *ssa.Call:
		if callee := x.Call.StaticCallee(); callee != nil && isSprintf(callee) && len(x.Call.Args) == 2 {
			for _, a := range sliceElems(x.Call.Args[1]) {
				if s, ok := fl.text(a, depth+1); !ok || strings.Contains(s, dynamicPart) {
					return fl.dynamicPartName(a, depth+1)
				}
			}
			return ""
		}
		return valueName(x, 0)
	case *ssa.Phi:
		// The statement assigned on two paths: both must name one part.
		name := ""
		for _, e := range x.Edges {
			n := fl.dynamicPartName(e, depth+1)
			if n == "" || name != "" && n != name {
				return ""
			}
			name = n
		}
		return name
	}
	return ""
}

func isSprintf(fn *ssa.Function) bool {
	f, ok := fn.Object().(*types.Func)
	return ok && f.Pkg() != nil && f.Pkg().Path() == "fmt" && f.Name() == "Sprintf"
}

// valueName names a value by where it comes from: a struct field
// ("Config.LockTable", whichever variable holds the struct), a package
// variable, a call of a named function on named arguments, a parameter (by
// its name). "" for anything else.
func valueName(v ssa.Value, depth int) string {
	if depth > 4 {
		return ""
	}
	switch x := unwrap(v).(type) {
	case *ssa.Const:
		if x.Value != nil {
			return x.Value.ExactString()
		}
	case *ssa.UnOp:
		if x.Op != token.MUL {
			return ""
		}
		switch a := x.X.(type) {
		case *ssa.FieldAddr:
			return fieldName(a.X.Type(), a.Field)
		case *ssa.Global:
			if a.Pkg != nil {
				return a.Pkg.Pkg.Name() + "." + a.Name()
			}
		}
	case *ssa.Field:
		return fieldName(x.X.Type(), x.Field)
	case *ssa.Parameter:
		// By its name, as the syntax names it: the lock rules match a
		// table parameter of Lock with the one of Unlock.
		return x.Name()
	case *ssa.Call:
		callee := x.Call.StaticCallee()
		if callee == nil || callee.Signature.Recv() != nil {
			return ""
		}
		f, ok := callee.Object().(*types.Func)
		if !ok || f.Pkg() == nil {
			return ""
		}
		args := make([]string, len(x.Call.Args))
		for i, a := range x.Call.Args {
			if args[i] = valueName(a, depth+1); args[i] == "" {
				return ""
			}
		}
		return f.Pkg().Name() + "." + f.Name() + "(" + strings.Join(args, ", ") + ")"
	}
	return ""
}

// fieldName: "Config.LockTable" for field i of the struct (or pointer to
// struct) type t, when the struct is a named type.
func fieldName(t types.Type, i int) string {
	f := fieldOf(t, i)
	if f == nil {
		return ""
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return ""
	}
	return named.Obj().Name() + "." + f.Name()
}
