package effects

import (
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/signals"
)

// mintTransform: calls that carry a minted value on (an encoding of it, a
// certificate made for its public key). Other calls do not: a value
// derived by a function the analysis cannot read is not provably minted.
var mintTransform = regexp.MustCompile(`(?i)(encode|marshal|^createcertificate$)`)

// mintedMethod: methods of a minted value that give part of it.
var mintedMethod = map[string]bool{"Public": true, "Bytes": true, "String": true, "MarshalBinary": true, "MarshalText": true}

// minted names the call that minted v (a key pair, random bytes, a UUID:
// kind mint in effects.yaml), seen through SSA value flow: results of this
// package's functions, fields and slices of a minted value, encodings of
// it. "" when v is not provably minted.
func (r *Result) minted(v ssa.Value, depth int) string {
	return r.mintedIn(nil, v, -1, depth)
}

// mintDepth bounds the walk: a key made in a helper, encoded in another,
// is some ten steps from the write.
const mintDepth = 16

// params binds the parameters of a function of this package entered
// through a call to that call's arguments.
type params map[*ssa.Parameter]binding

// binding is an argument and the bindings of the function it is in.
type binding struct {
	v   ssa.Value
	env params
}

// mintedIn: as minted, with env binding parameters, for result index of
// a tuple-valued v (-1 for
// a single value).
func (r *Result) mintedIn(env params, v ssa.Value, index, depth int) string {
	if v == nil || depth > mintDepth {
		return ""
	}
	switch x := unwrap(v).(type) {
	case *ssa.Extract:
		return r.mintedIn(env, x.Tuple, x.Index, depth+1)
	case *ssa.ChangeInterface:
		return r.mintedIn(env, x.X, -1, depth+1)
	case *ssa.Parameter:
		if b, ok := env[x]; ok {
			return r.mintedIn(b.env, b.v, -1, depth+1) // the caller's argument
		}
	case *ssa.Field:
		return r.mintedIn(env, x.X, -1, depth+1)
	case *ssa.FieldAddr:
		return r.mintedIn(env, x.X, -1, depth+1)
	case *ssa.Slice:
		return r.mintedIn(env, x.X, -1, depth+1)
	case *ssa.UnOp:
		if x.Op == token.MUL {
			return r.mintedIn(env, x.X, -1, depth+1)
		}
	case *ssa.Phi:
		// Every edge minted (a nil edge, an error path, aside).
		var by string
		for _, e := range x.Edges {
			if c, ok := e.(*ssa.Const); ok && c.IsNil() {
				continue
			}
			m := r.mintedIn(env, e, -1, depth+1)
			if m == "" {
				return ""
			}
			by = m
		}
		return by
	case *ssa.Call:
		return r.mintedCall(env, x.Call, index, depth)
	case *ssa.Alloc:
		return r.mintedAlloc(env, x, depth)
	case *ssa.MakeSlice:
		// buf := make([]byte, n); rand.Read(buf)
		for _, ref := range *x.Referrers() {
			if c, ok := ref.(*ssa.Call); ok && len(c.Call.Args) > 0 && c.Call.Args[0] == x {
				if m := r.mintCall(c.Call); m != "" {
					return m
				}
			}
		}
	}
	return ""
}

// mintedAlloc: a local value filled with a minted one: a field set to it
// (&pem.Block{Bytes: der}), or a buffer an encoding writes it into
// (pem.Encode(&buf, block)).
func (r *Result) mintedAlloc(env params, a *ssa.Alloc, depth int) string {
	if depth > mintDepth {
		return ""
	}
	for _, ref := range *a.Referrers() {
		switch u := ref.(type) {
		case *ssa.FieldAddr:
			for _, fref := range *u.Referrers() {
				if st, ok := fref.(*ssa.Store); ok && st.Addr == u {
					if m := r.mintedIn(env, st.Val, -1, depth+1); m != "" {
						return m
					}
				}
			}
		case *ssa.Slice:
			// buf := make([]byte, 32) (an array, sliced); rand.Read(buf)
			for _, sref := range *u.Referrers() {
				if c, ok := sref.(*ssa.Call); ok && len(c.Call.Args) > 0 && c.Call.Args[0] == u {
					if m := r.mintCall(c.Call); m != "" {
						return m
					}
				}
			}
		case *ssa.Call:
			if m := r.mintedInto(env, u.Call, a, depth); m != "" {
				return m
			}
		case *ssa.MakeInterface:
			for _, iref := range *u.Referrers() {
				if c, ok := iref.(*ssa.Call); ok {
					if m := r.mintedInto(env, c.Call, u, depth); m != "" {
						return m
					}
				}
			}
		}
	}
	return ""
}

// mintedInto: c is an encoding that writes into dst a minted value among
// its other arguments.
func (r *Result) mintedInto(env params, c ssa.CallCommon, dst ssa.Value, depth int) string {
	callee := c.StaticCallee()
	if callee == nil {
		return ""
	}
	fn, _ := callee.Object().(*types.Func)
	if fn == nil || fn.Pkg() == nil || !mintTransform.MatchString(fn.Name()) {
		return ""
	}
	for _, arg := range c.Args {
		if arg == dst {
			continue
		}
		if m := r.mintedIn(env, arg, -1, depth+1); m != "" {
			return m
		}
	}
	return ""
}

func (r *Result) mintedCall(env params, c ssa.CallCommon, index, depth int) string {
	if c.IsInvoke() {
		if mintedMethod[c.Method.Name()] {
			return r.mintedIn(env, c.Value, -1, depth+1) // signer.Public() of a fresh signer
		}
		return ""
	}
	if by := r.mintCall(c); by != "" {
		return by
	}
	callee := c.StaticCallee()
	if callee == nil {
		return ""
	}
	fn, _ := callee.Object().(*types.Func)
	if fn == nil || fn.Pkg() == nil {
		return ""
	}
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil && mintedMethod[fn.Name()] {
		return r.mintedIn(env, c.Args[0], -1, depth+1)
	}
	if fn.Pkg() == r.pass.Pkg && callee.Blocks != nil {
		// A function of this package: minted when every value it returns
		// at index is.
		inner := params{}
		for i, p := range callee.Params {
			if i < len(c.Args) {
				inner[p] = binding{c.Args[i], env}
			}
		}
		var by string
		for _, b := range callee.Blocks {
			ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
			if !ok {
				continue
			}
			i := max(index, 0)
			if i >= len(ret.Results) {
				return ""
			}
			res := ret.Results[i]
			if cst, ok := res.(*ssa.Const); ok && cst.IsNil() {
				continue // the error path
			}
			m := r.mintedIn(inner, res, -1, depth+1)
			if m == "" {
				return ""
			}
			by = m
		}
		return by
	}
	if mintTransform.MatchString(fn.Name()) || strings.HasPrefix(fn.Pkg().Path(), "encoding/") {
		for _, arg := range c.Args {
			if m := r.mintedIn(env, arg, -1, depth+1); m != "" {
				return m
			}
		}
	}
	return ""
}

// mintedWrite: a set to a value (args.value) is not idempotent when this
// replica mints the value: every replica writes a different one, and of
// two such writes (a certificate and its key) the stored pair may mix
// replicas. A write keyed by the instance's identity is its own.
func (r *Result) mintedWrite(call *ast.CallExpr, a *signals.API, e *Effect) {
	i, ok := a.Arg("value")
	if !ok || i >= len(call.Args) {
		return
	}
	fl := r.flow()
	by := r.minted(fl.arg(call, i), 0)
	if by == "" || r.identityKey(call, a) {
		return
	}
	e.Idempotent = false
	if e.Resource == "" {
		e.Resource = "storage key (not constant)"
	} else if !strings.Contains(e.Resource, " ") {
		e.Resource = "storage key " + e.Resource
	}
	e.Resource += ", a value minted by " + by
}

// mintCall names c's callee when it is a kb mint call, or "".
func (r *Result) mintCall(c ssa.CallCommon) string {
	callee := c.StaticCallee()
	if callee == nil {
		return ""
	}
	fn, _ := callee.Object().(*types.Func)
	if fn == nil || fn.Pkg() == nil {
		return ""
	}
	if a := r.kb.Match(signals.Effects, fn); a != nil && a.Kind == "mint" {
		return shortAPI(apiName(fn))
	}
	return ""
}
