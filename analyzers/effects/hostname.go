package effects

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// HostNameOnly tells whether v can be the host name and nothing more on
// some path: os.Hostname()'s result, or that result changed by a string
// transform (strings.ToLower, a regexp ReplaceAllString, a slice), joined
// with constants only (host + "-controller"), stored into a field or
// variable this package reads back, or returned by a function of the
// package that builds it from its argument. It returns the os.Hostname
// call, or nil. A path that adds anything the process does not share with
// other processes on its host (a UUID, the pid, a flag, a parameter this
// package cannot see the source of) does not count: silence on unknown
// values.
//
// One path is enough: the default of `if id == "" { id = hostname }` is
// what runs when nobody sets the identity.
func (r *Result) HostNameOnly(v ssa.Value) *ssa.Call {
	return r.flow().hostOnly(v, nil, 0)
}

// hostOnly: env maps the parameters of the function being read to the
// caller's arguments, for a helper the value was returned from.
func (fl *flow) hostOnly(v ssa.Value, env map[*ssa.Parameter]ssa.Value, depth int) *ssa.Call {
	if v == nil || depth > maxDepth {
		return nil
	}
	switch v := unwrap(v).(type) { // conversions and interfaces carry the name unchanged
	case *ssa.Extract:
		if c, ok := v.Tuple.(*ssa.Call); ok && v.Index == 0 {
			return fl.hostOnly(c, env, depth+1)
		}
	case *ssa.Call:
		return fl.hostOnlyCall(v, env, depth)
	case *ssa.BinOp:
		if v.Op != token.ADD {
			return nil
		}
		x, xc := fl.hostOnly(v.X, env, depth+1), isConst(v.X)
		y, yc := fl.hostOnly(v.Y, env, depth+1), isConst(v.Y)
		switch {
		case x != nil && (y != nil || yc):
			return x
		case y != nil && xc:
			return y
		}
	case *ssa.Slice:
		return fl.hostOnly(v.X, env, depth+1)
	case *ssa.Phi:
		for _, e := range v.Edges {
			if h := fl.hostOnly(e, env, depth+1); h != nil {
				return h
			}
		}
	case *ssa.UnOp:
		if v.Op == token.MUL {
			return fl.storedHostOnly(storeKey(v.X), depth)
		}
	case *ssa.Field:
		return fl.storedHostOnly(fieldOf(v.X.Type(), v.Field), depth)
	case *ssa.FreeVar:
		for _, b := range bindings(v) {
			if h := fl.hostOnly(b, nil, depth+1); h != nil {
				return h
			}
		}
	case *ssa.Parameter:
		if a, ok := env[v]; ok {
			return fl.hostOnly(a, nil, depth+1)
		}
	}
	return nil
}

// hostOnlyCall: os.Hostname itself, a string transform of a host-only
// argument, fmt.Sprint* of host-only and constant arguments, or a function
// of this package one of whose results is host-only given its arguments.
func (fl *flow) hostOnlyCall(c *ssa.Call, env map[*ssa.Parameter]ssa.Value, depth int) *ssa.Call {
	callee := c.Call.StaticCallee()
	if callee == nil {
		return nil
	}
	args := c.Call.Args
	if fn, ok := callee.Object().(*types.Func); ok && fn.Pkg() != nil {
		path, name := fn.Pkg().Path(), fn.Name()
		switch {
		case path == "os" && name == "Hostname":
			return c
		case path == "strings" && len(args) > 0:
			repl, ok := stringTransforms[name]
			if !ok || repl > 0 && (repl >= len(args) || !isConst(args[repl])) {
				return nil // a replacement the package does not fix may add anything
			}
			return fl.hostOnly(args[0], env, depth+1)
		case path == "regexp" && (name == "ReplaceAllString" || name == "ReplaceAllLiteralString") && len(args) == 3:
			// (*Regexp).ReplaceAllString(re, src, repl): a constant replacement
			if isConst(args[2]) {
				return fl.hostOnly(args[1], env, depth+1)
			}
			return nil
		case path == "fmt" && (name == "Sprintf" || name == "Sprint") && len(args) > 0:
			var host *ssa.Call
			for _, a := range sliceElems(args[len(args)-1]) {
				a = unwrap(a)
				if h := fl.hostOnly(a, env, depth+1); h != nil {
					host = h
				} else if !isConst(a) {
					return nil // another value joins the name: a nonce, a port, unknown
				}
			}
			return host
		}
	}
	if callee.Blocks == nil || callee.Pkg == nil || len(fl.funcs) == 0 || callee.Pkg != fl.funcs[0].Pkg {
		return nil
	}
	inner := map[*ssa.Parameter]ssa.Value{}
	for i, p := range callee.Params {
		if i < len(args) {
			inner[p] = args[i]
		}
	}
	for _, b := range callee.Blocks {
		if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && len(ret.Results) > 0 {
			if h := fl.hostOnly(ret.Results[0], inner, depth+1); h != nil {
				return h
			}
		}
	}
	return nil
}

// stringTransforms: functions of package strings whose result is built from
// their first argument, removing or changing case, and the index of the
// replacement argument that must be a constant (0: none): ReplaceAll(host,
// ".", uuid) adds a nonce, ReplaceAll(host, ".", "-") adds nothing.
var stringTransforms = map[string]int{
	"ToLower": 0, "ToUpper": 0, "TrimSpace": 0, "Trim": 0, "TrimLeft": 0,
	"TrimRight": 0, "TrimPrefix": 0, "TrimSuffix": 0, "ReplaceAll": 2, "Replace": 2,
}

// storedHostOnly: some value this package stores into the field or
// variable is host-only.
func (fl *flow) storedHostOnly(key any, depth int) *ssa.Call {
	if key == nil {
		return nil
	}
	for _, v := range fl.stores[key] {
		if h := fl.hostOnly(v, nil, depth+1); h != nil {
			return h
		}
	}
	return nil
}

func isConst(v ssa.Value) bool {
	_, ok := unwrap(v).(*ssa.Const)
	return ok
}
