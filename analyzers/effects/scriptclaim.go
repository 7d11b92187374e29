package effects

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"regexp"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/signals"
)

// A Redis script that takes items out of a shared collection atomically is
// a claim: two replicas running it cannot both get the same item. Two
// shapes are read from the Lua source:
//
//   - it branches on, or keeps, what a removing command answered
//     (luaTakes: local job = redis.call('LPOP', ...), if redis.call('ZREM',
//     ...) == 1): each item is taken once;
//   - it moves members: it reads a range of KEYS[i], removes that range
//     from KEYS[i] and adds to another key KEYS[j] (ZRANGE, ZADD KEYS[j],
//     ZREMRANGEBYRANK KEYS[i]), where KEYS[j] is this caller's own key, one
//     built from an identifier minted for this call (uuid.NewString()), or
//     returns what it read.
//
// Like any claim it coordinates only the work its answer gates (gate.go).
// A move into a fixed key is no claim: every replica then reads the same
// destination. A script whose source the analysis cannot read is no
// claim either.

// luaKeyCall matches redis.call('ZADD', KEYS[2] and captures the command
// and the key's index.
var luaKeyCall = regexp.MustCompile(`(?i)redis\.p?call\s*\(\s*['"]([A-Za-z]+)['"]\s*,\s*KEYS\[(\d+)\]`)

// luaRangeKept matches local res = redis.call('ZRANGE', KEYS[1]: the
// variable that keeps a range read, and the key's index.
var luaRangeKept = regexp.MustCompile(`(?i)\b(\w+)\s*=\s*redis\.p?call\s*\(\s*['"](zrange|zrangebyscore|zrevrange|zrevrangebyscore|lrange|smembers)['"]\s*,\s*KEYS\[(\d+)\]`)

var (
	luaRangeReads = map[string]bool{"ZRANGE": true, "ZRANGEBYSCORE": true, "ZREVRANGE": true, "ZREVRANGEBYSCORE": true, "LRANGE": true, "SMEMBERS": true}
	luaRemoves    = map[string]bool{"ZREM": true, "ZREMRANGEBYRANK": true, "ZREMRANGEBYSCORE": true, "LTRIM": true, "LREM": true, "SREM": true, "DEL": true, "UNLINK": true}
	luaAdds       = map[string]bool{"ZADD": true, "SADD": true, "RPUSH": true, "LPUSH": true, "HSET": true, "SET": true, "XADD": true}
)

// luaClaim is what a script's source says it claims.
type luaClaim struct {
	what string
	// into lists the 1-based indexes of KEYS the moved members may go to:
	// the claim holds when one of them is this caller's own key. Empty when
	// the script needs none (it takes items, or returns what it moved).
	into []int
}

// readLuaClaim reads a claim from a script's source.
func readLuaClaim(src string) (luaClaim, bool) {
	if m := luaTakes.FindStringSubmatch(src); m != nil {
		return luaClaim{what: "takes each item once (" + strings.ToUpper(m[2]) + ")"}, true
	}
	// read, removed and added list the KEYS indexes in source order.
	var read, added []string
	removed := map[string]bool{}
	for _, m := range luaKeyCall.FindAllStringSubmatch(src, -1) {
		cmd := strings.ToUpper(m[1])
		switch {
		case luaRangeReads[cmd]:
			read = append(read, m[2])
		case luaRemoves[cmd]:
			removed[m[2]] = true
		case luaAdds[cmd]:
			added = append(added, m[2])
		}
	}
	for _, m := range luaRangeKept.FindAllStringSubmatch(src, -1) {
		if removed[m[3]] && regexp.MustCompile(`\breturn\s+`+regexp.QuoteMeta(m[1])+`\b`).MatchString(src) {
			return luaClaim{what: "removes from KEYS[" + m[3] + "] the members it returns"}, true
		}
	}
	for _, from := range read {
		if !removed[from] {
			continue
		}
		c := luaClaim{what: "moves members of KEYS[" + from + "] out of it"}
		for _, to := range added {
			if to != from {
				c.into = append(c.into, atoi(to))
			}
		}
		if len(c.into) > 0 {
			return c, true
		}
	}
	return luaClaim{}, false
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// ScriptParam is a parameter of a function that it runs as a Redis script
// handle or source: a caller that passes a claim script makes the call a
// claim.
type ScriptParam struct {
	Param int  // index among the function's parameters
	Keys  int  // the parameter that holds the script's keys, -1 when none
	Gate  bool // the function returns the script's answer
}

// scriptClaimEvent makes a script's run a claim (ev.Coordination) when its
// source reads as one and its answer gates the work; it records a script
// handed in as a parameter (ev.Scripts) for the callers to read. It reports
// whether the call is a claim. The source is read from the syntax first,
// so that the SSA form is built only for a script the syntax does not
// show, or for a claim's keys.
func (r *Result) scriptClaimEvent(call *ast.CallExpr, a *signals.API, ev *Event) bool {
	scriptAt, byArg := a.Arg("script")
	var src string
	var known bool
	if byArg && scriptAt < len(call.Args) {
		src, known = r.constString(call.Args[scriptAt])
	} else if sel, isSel := ast.Unparen(call.Fun).(*ast.SelectorExpr); isSel && !byArg {
		src, known = r.scriptSource(sel.X)
	}
	keysAt, hasKeys := a.Arg("key")
	keys := func() ssa.Value {
		if !hasKeys {
			return nil
		}
		return r.flow().arg(call, keysAt)
	}
	if !known {
		fl := r.flow()
		var script ssa.Value
		if byArg {
			script = fl.arg(call, scriptAt)
		} else if c := fl.common(call); c != nil && !c.IsInvoke() && c.Signature().Recv() != nil && len(c.Args) > 0 {
			script = c.Args[0] // the handle the method runs
		}
		if p := paramIndex(script); p >= 0 {
			keysParam := -1
			if hasKeys {
				keysParam = r.paramOf(call, keysAt)
			}
			ev.Scripts = append(ev.Scripts, ScriptParam{Param: p, Keys: keysParam, Gate: r.gate(call).returned})
			return false
		}
		if src, known = r.scriptText(script, 0); !known {
			return false
		}
	}
	return r.claimBy(call, src, keys, true, ev)
}

// claimBy makes call a claim when src reads as one, its keys name this
// caller's own destination when it needs one, and the answer gates the
// work here (answered: the callee hands the script's answer back).
func (r *Result) claimBy(call *ast.CallExpr, src string, keys func() ssa.Value, answered bool, ev *Event) bool {
	c, ok := readLuaClaim(src)
	if !ok || !answered || len(c.into) > 0 && !ownDestination(c, keys()) {
		return false
	}
	g := r.gate(call)
	if !g.checked {
		return false // the answer is dropped: every replica goes on
	}
	ev.Coordination, ev.Gate = "claim (a Redis script that "+c.what+")", g.returned
	return true
}

// resolveScript reads, at a call of a helper, the script the helper runs
// as its parameter sp.Param: a claim coordinates this call; a script
// handed on again stays a script parameter of the caller.
func (r *Result) resolveScript(call *ast.CallExpr, sp ScriptParam, ev *Event) {
	fl := r.flow()
	keys := func() ssa.Value {
		if sp.Keys < 0 {
			return nil
		}
		return fl.arg(call, sp.Keys)
	}
	if p := r.paramOf(call, sp.Param); p >= 0 {
		keysParam := -1
		if sp.Keys >= 0 {
			keysParam = r.paramOf(call, sp.Keys)
		}
		ev.Scripts = append(ev.Scripts, ScriptParam{Param: p, Keys: keysParam, Gate: sp.Gate && r.gate(call).returned})
		return
	}
	if src, ok := r.scriptText(fl.arg(call, sp.Param), 0); ok {
		r.claimBy(call, src, keys, sp.Gate, ev)
	}
}

// ownDestination: one of the keys the claim may move into is built from
// an identifier minted for this call.
func ownDestination(c luaClaim, keys ssa.Value) bool {
	for _, j := range c.into {
		for _, v := range sliceElem(keys, j-1) {
			if freshKey(v, 0) {
				return true
			}
		}
	}
	return false
}

// sliceElem returns the values stored at index i of a slice built from a
// local array ([]string{a, b, c}).
func sliceElem(v ssa.Value, i int) []ssa.Value {
	s, ok := v.(*ssa.Slice)
	if !ok {
		return nil
	}
	alloc, ok := s.X.(*ssa.Alloc)
	if !ok {
		return nil
	}
	var out []ssa.Value
	for _, ref := range referrers(alloc) {
		ia, ok := ref.(*ssa.IndexAddr)
		if !ok {
			continue
		}
		idx, ok := ia.Index.(*ssa.Const)
		if !ok || idx.Value == nil || idx.Value.Kind() != constant.Int {
			continue
		}
		if n, exact := constant.Int64Val(idx.Value); !exact || n != int64(i) {
			continue
		}
		for _, r := range referrers(ia) {
			if st, ok := r.(*ssa.Store); ok && st.Addr == ia {
				out = append(out, st.Val)
			}
		}
	}
	return out
}

// freshKey: a key built from an identifier minted for this call: the
// identifier itself, a concatenation or a call (a key-building helper,
// fmt.Sprintf) that takes it.
func freshKey(v ssa.Value, depth int) bool {
	if v == nil || depth > maxDepth {
		return false
	}
	if randomID(v, 0) {
		return true
	}
	switch x := unwrap(v).(type) {
	case *ssa.BinOp:
		return x.Op == token.ADD && (freshKey(x.X, depth+1) || freshKey(x.Y, depth+1))
	case *ssa.Call:
		if x.Call.StaticCallee() == nil {
			return false
		}
		for i, a := range x.Call.Args {
			if i == len(x.Call.Args)-1 && x.Call.Signature().Variadic() {
				for _, e := range sliceElems(a) {
					if freshKey(e, depth+1) {
						return true
					}
				}
				continue
			}
			if freshKey(a, depth+1) {
				return true
			}
		}
	}
	return false
}

// paramIndex returns the index of a parameter of a declared function (not
// a closure) among its parameters, the receiver left out, or -1.
func paramIndex(v ssa.Value) int {
	p, ok := v.(*ssa.Parameter)
	if !ok || p.Parent() == nil || p.Parent().Parent() != nil {
		return -1
	}
	off := 0
	if p.Parent().Signature.Recv() != nil {
		off = 1
	}
	for j, x := range p.Parent().Params {
		if x == p && j >= off {
			return j - off
		}
	}
	return -1
}

// scriptText reads a script's Lua source from a value: a constant, a
// NewScript call of a Redis client package, a package variable or field
// stored once from one, or an entry with a constant key of a package-level
// map literal of sources or handles.
func (r *Result) scriptText(v ssa.Value, depth int) (string, bool) {
	if v == nil || depth > maxDepth {
		return "", false
	}
	fl := r.flow()
	switch x := unwrap(v).(type) {
	case *ssa.Const:
		if x.Value != nil && x.Value.Kind() == constant.String {
			return constant.StringVal(x.Value), true
		}
	case *ssa.Call:
		callee := x.Call.StaticCallee()
		if callee == nil {
			return "", false
		}
		fn, _ := callee.Object().(*types.Func)
		if fn == nil || fn.Name() != "NewScript" || fn.Pkg() == nil || !isRedis(fn.Pkg().Path()) || len(x.Call.Args) == 0 {
			return "", false
		}
		return r.scriptText(x.Call.Args[len(x.Call.Args)-1], depth+1)
	case *ssa.UnOp:
		if x.Op != token.MUL {
			return "", false
		}
		if k := storeKey(x.X); k != nil {
			if vals := fl.stores[k]; len(vals) == 1 {
				return r.scriptText(vals[0], depth+1)
			}
		}
	case *ssa.Lookup:
		// scripts["claim"]: an entry of a package-level map literal.
		key, ok := x.Index.(*ssa.Const)
		if !ok {
			return "", false
		}
		load, ok := x.X.(*ssa.UnOp)
		if !ok || load.Op != token.MUL {
			return "", false
		}
		g, ok := load.X.(*ssa.Global)
		if !ok {
			return "", false
		}
		gv, _ := g.Object().(*types.Var)
		if e := r.mapLiteralEntry(gv, key); e != nil {
			return r.astScriptText(e)
		}
	}
	return "", false
}

// mapLiteralEntry returns the value expression under a constant key in the
// map literal a package variable is declared with and never assigned
// again, or nil.
func (r *Result) mapLiteralEntry(v *types.Var, key *ssa.Const) ast.Expr {
	if v == nil || v.Pkg() != r.pass.Pkg || key.Value == nil {
		return nil
	}
	lit, _ := ast.Unparen(r.soleValue(v)).(*ast.CompositeLit)
	if lit == nil {
		return nil
	}
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if tv, ok := r.pass.TypesInfo.Types[kv.Key]; ok && tv.Value != nil && constant.Compare(tv.Value, token.EQL, key.Value) {
			return kv.Value
		}
	}
	return nil
}

// astScriptText reads a script source from an expression: a constant, or a
// NewScript call on one.
func (r *Result) astScriptText(e ast.Expr) (string, bool) {
	if s, ok := r.constString(e); ok {
		return s, true
	}
	if call, ok := ast.Unparen(e).(*ast.CallExpr); ok {
		return r.newScriptSource(call)
	}
	return "", false
}
