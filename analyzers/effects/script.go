package effects

import (
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// A Redis script run through a handle (redigo's redis.NewScript(n, src)
// and Script.Do, go-redis's redis.NewScript(src) and Script.Run) or with
// its source (go-redis Eval) does what its Lua source says. When the source is a
// constant the analysis can read, its redis.call commands classify the
// script like the commands themselves; a source it cannot read is a write
// of unknown kind, as Eval is.

// luaCall matches redis.call('RPUSH', ...) and redis.pcall("incr", ...).
var luaCall = regexp.MustCompile(`redis\.p?call\s*\(\s*['"]([A-Za-z]+)['"]`)

// luaConditionalSet: a script that sets a key only when it is absent
// (SETNX, SET ... NX) is a claim or a lock, coordination that the LE3xxx
// rules judge, not the work's effect: such a script gives no effect.
var luaConditionalSet = regexp.MustCompile(`(?i)redis\.p?call\s*\(\s*['"](setnx|hsetnx)['"]|redis\.p?call\s*\(\s*['"]set['"][^)]*['"]nx['"]`)

// luaTakes: a script that branches on what a removing command answered
// (if redis.call('ZREM', ...) == 1, local job = redis.call('LPOP', ...)
// then if job; an answer kept in any variable counts) takes each item once: a second replica's run finds it gone.
// That is a claim, however many replicas run the script: no effect.
var luaTakes = regexp.MustCompile(`(?i)(\bif\b[^\n]*|\b\w+\s*=\s*)redis\.p?call\s*\(\s*['"](` +
	`lpop|rpop|rpoplpush|lmove|blpop|brpop|zpopmin|zpopmax|spop|zrem|srem|lrem|hdel|del|unlink|getdel|smove)['"]`)

// scriptEffect classifies a script's run from its source: the script
// argument (Eval(ctx, src, keys)) when the API has one, else the handle the
// method is called on. ok is false when the script is coordination or only
// reads, and gives no effect.
func (r *Result) scriptEffect(call *ast.CallExpr, script ast.Expr, e *Effect) (ok bool) {
	var src string
	known := false
	if script != nil {
		src, known = r.constString(script)
	} else if sel, isSel := ast.Unparen(call.Fun).(*ast.SelectorExpr); isSel {
		src, known = r.scriptSource(sel.X)
	}
	if !known {
		e.Kind = "write"
		return true
	}
	if luaConditionalSet.MatchString(src) || luaTakes.MatchString(src) {
		return false
	}
	rank := map[string]int{"": 0, "delete": 1, "update": 2, "insert": 2, "write": 3, "increment": 4, "send": 4}
	kind, idem := "", true
	for _, m := range luaCall.FindAllStringSubmatch(src, -1) {
		k, i := redisCommand(strings.ToUpper(m[1]))
		if k == "" {
			continue // a read (GET, LRANGE, ZRANGEBYSCORE)
		}
		idem = idem && i
		if rank[k] > rank[kind] || rank[k] == rank[kind] && !i {
			kind = k
		}
	}
	if kind == "" {
		return false // a script that only reads
	}
	e.Kind, e.Idempotent = kind, idem
	return true
}

// scriptSource returns the constant Lua source of a script handle: the
// handle built in place (redis.NewScript(1, src).Do(...)), or a variable
// or unexported struct field assigned once, in this package, from such a
// call (a package-level var, a local one, a field set where the struct is
// built).
func (r *Result) scriptSource(recv ast.Expr) (string, bool) {
	recv = ast.Unparen(recv)
	if call, ok := recv.(*ast.CallExpr); ok {
		return r.newScriptSource(call)
	}
	var v *types.Var
	switch x := recv.(type) {
	case *ast.Ident:
		v, _ = r.pass.TypesInfo.Uses[x].(*types.Var)
	case *ast.SelectorExpr:
		// a handle kept in a struct field (r.script), set where the
		// struct is built: an unexported field, so every store is here
		if sel, ok := r.pass.TypesInfo.Selections[x]; ok && sel.Kind() == types.FieldVal {
			v, _ = sel.Obj().(*types.Var)
			if v != nil && v.Exported() {
				return "", false
			}
		}
	}
	if v == nil || v.Pkg() != r.pass.Pkg {
		return "", false
	}
	init := r.soleValue(v)
	if init == nil {
		return "", false
	}
	call, ok := ast.Unparen(init).(*ast.CallExpr)
	if !ok {
		return "", false
	}
	return r.newScriptSource(call)
}

// soleValue returns the one value ever stored to v, a package variable or
// an unexported field of this package: its declaration's value, a keyed
// composite literal's, or an assignment's; nil when it is stored more than
// once, its address is taken, or a positional literal may set it.
func (r *Result) soleValue(v *types.Var) ast.Expr {
	var init ast.Expr
	assigns := 0
	for _, f := range r.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if r.pass.TypesInfo.Defs[name] == v && i < len(n.Values) {
						init, assigns = n.Values[i], assigns+1
					}
				}
			case *ast.KeyValueExpr:
				if key, ok := n.Key.(*ast.Ident); ok && v.IsField() && r.pass.TypesInfo.ObjectOf(key) == v {
					init, assigns = n.Value, assigns+1
				}
			case *ast.AssignStmt:
				for i, l := range n.Lhs {
					var lid *ast.Ident
					switch l := ast.Unparen(l).(type) {
					case *ast.Ident:
						lid = l
					case *ast.SelectorExpr:
						lid = l.Sel
					}
					if lid == nil || r.pass.TypesInfo.ObjectOf(lid) != v {
						continue
					}
					assigns++
					if len(n.Lhs) == len(n.Rhs) {
						init = n.Rhs[i]
					}
				}
			case *ast.UnaryExpr:
				if n.Op == token.AND {
					var aid *ast.Ident
					switch x := ast.Unparen(n.X).(type) {
					case *ast.Ident:
						aid = x
					case *ast.SelectorExpr:
						aid = x.Sel
					}
					if aid != nil && r.pass.TypesInfo.Uses[aid] == v {
						assigns += 2 // its address escapes: any value may be stored
					}
				}
			case *ast.CompositeLit:
				if v.IsField() && len(n.Elts) > 0 && HasField(r.pass.TypesInfo.TypeOf(n), v) {
					if _, keyed := n.Elts[0].(*ast.KeyValueExpr); !keyed {
						assigns += 2 // positional: which value is the handle is not read here
					}
				}
			}
			return true
		})
	}
	if assigns != 1 {
		return nil
	}
	return init
}

// newScriptSource reads the source of a NewScript call of a Redis client
// package: its last argument, a constant string.
func (r *Result) newScriptSource(call *ast.CallExpr) (string, bool) {
	fn, _ := typeutil.Callee(r.pass.TypesInfo, call).(*types.Func)
	if fn == nil || fn.Name() != "NewScript" || fn.Pkg() == nil || !isRedis(fn.Pkg().Path()) || len(call.Args) == 0 {
		return "", false
	}
	return r.constString(call.Args[len(call.Args)-1])
}

// HasField reports whether t (or what it points to) is a struct with field
// v: a composite literal of t can set v.
func HasField(t types.Type, v *types.Var) bool {
	if t == nil {
		return false
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := 0; i < st.NumFields(); i++ {
		if st.Field(i) == v {
			return true
		}
	}
	return false
}
