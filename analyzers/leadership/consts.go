package leadership

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
)

// Consts folds expressions to constants the way a reader of the code would:
// through named constants (the type checker already does), and through
// variables of the package that are initialised once with a constant
// expression and never written again (no other assignment, no ++/--, no
// address taken, so no flag.DurationVar or yaml.Unmarshal into them; a
// pointer handed to a configuration literal, Options{D: &d}, is a read), and
// through &v itself.
// Variables of other packages, and exported package-level variables (which
// other packages may set), are unknown.
type Consts struct {
	info  *types.Info
	pkg   *types.Package
	init  map[*types.Var]ast.Expr // the single initialiser
	dirty map[*types.Var]bool     // written after the initialiser, or shared
}

// NewConsts indexes the writes to the variables declared in files.
func NewConsts(info *types.Info, pkg *types.Package, files []*ast.File) *Consts {
	c := &Consts{info: info, pkg: pkg, init: map[*types.Var]ast.Expr{}, dirty: map[*types.Var]bool{}}
	def := func(id *ast.Ident, val ast.Expr) {
		v, ok := info.Defs[id].(*types.Var)
		if !ok || v == nil {
			return
		}
		if _, seen := c.init[v]; seen || val == nil {
			c.dirty[v] = true
			return
		}
		c.init[v] = val
	}
	write := func(e ast.Expr) {
		if v := c.varOf(e); v != nil {
			c.dirty[v] = true
		}
	}
	for _, f := range files {
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			var parent ast.Node
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			stack = append(stack, n)
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if len(n.Values) == len(n.Names) {
						def(id, n.Values[i])
					} else if v, ok := info.Defs[id].(*types.Var); ok && v != nil {
						// var x T (zero value) or var a, b = f(): not a known constant
						c.dirty[v] = true
					}
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					id, isIdent := lhs.(*ast.Ident)
					if n.Tok == token.DEFINE && isIdent && info.Defs[id] != nil {
						if len(n.Rhs) == len(n.Lhs) {
							def(id, n.Rhs[i])
						} else {
							def(id, nil)
						}
						continue
					}
					write(lhs)
				}
			case *ast.IncDecStmt:
				write(n.X)
			case *ast.UnaryExpr:
				if n.Op == token.AND {
					if kv, ok := parent.(*ast.KeyValueExpr); ok && kv.Value == n {
						// Options{LeaseDuration: &lease}: a pointer handed to a
						// configuration struct, read by the library
						break
					}
					write(n.X)
				}
			case *ast.RangeStmt:
				if n.Key != nil {
					write(n.Key)
				}
				if n.Value != nil {
					write(n.Value)
				}
			}
			return true
		})
	}
	return c
}

func (c *Consts) varOf(e ast.Expr) *types.Var {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return nil
	}
	v, _ := c.info.Uses[id].(*types.Var)
	if v == nil {
		v, _ = c.info.Defs[id].(*types.Var)
	}
	return v
}

// Value returns the constant value of e, or nil when it is not known.
func (c *Consts) Value(e ast.Expr) constant.Value {
	return c.value(e, 0)
}

// Int64 returns the value of e as an int64 (a time.Duration in nanoseconds).
func (c *Consts) Int64(e ast.Expr) (int64, bool) {
	v := c.Value(e)
	if v == nil {
		return 0, false
	}
	v = constant.ToInt(v)
	if v.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(v)
}

func (c *Consts) value(e ast.Expr, depth int) constant.Value {
	if e == nil || depth > 16 {
		return nil
	}
	if tv, ok := c.info.Types[e]; ok && tv.Value != nil {
		return tv.Value
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return c.value(e.X, depth+1)
	case *ast.Ident:
		v, _ := c.info.Uses[e].(*types.Var)
		if v == nil || v.Pkg() != c.pkg || c.dirty[v] || v.IsField() {
			return nil
		}
		if v.Exported() && v.Parent() == c.pkg.Scope() {
			return nil // other packages may set it
		}
		if init, ok := c.init[v]; ok {
			return c.value(init, depth+1)
		}
	case *ast.UnaryExpr:
		x := c.value(e.X, depth+1)
		if x == nil {
			return nil
		}
		if e.Op == token.AND {
			return x // the value behind a pointer to a write-once variable
		}
		if e.Op != token.SUB && e.Op != token.ADD {
			return nil
		}
		return constant.UnaryOp(e.Op, x, 0)
	case *ast.BinaryExpr:
		x, y := c.value(e.X, depth+1), c.value(e.Y, depth+1)
		if x == nil || y == nil {
			return nil
		}
		switch e.Op {
		case token.ADD, token.SUB, token.MUL:
			return constant.BinaryOp(x, e.Op, y)
		case token.QUO:
			if constant.Sign(y) == 0 {
				return nil
			}
			if x.Kind() == constant.Int && y.Kind() == constant.Int {
				return constant.BinaryOp(x, token.QUO_ASSIGN, y) // integer division
			}
			return constant.BinaryOp(x, token.QUO, y)
		}
	case *ast.CallExpr:
		// a conversion such as time.Duration(n) or int(d)
		if tv, ok := c.info.Types[e.Fun]; ok && tv.IsType() && len(e.Args) == 1 {
			x := c.value(e.Args[0], depth+1)
			if x == nil {
				return nil
			}
			if b, ok := tv.Type.Underlying().(*types.Basic); ok && b.Info()&types.IsInteger != 0 {
				return constant.ToInt(x)
			}
			return x
		}
	}
	return nil
}
