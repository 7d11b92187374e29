package effects

// A periodic report of this replica's own state: a heartbeat or status
// POST to a control plane whose body (or URL) is keyed by the instance's
// own identity. Every replica sends its own report, about itself, under
// its own key: per-replica by design, as a write keyed by the identity is
// (statement.go, classify.go). Only an identity the identity walk
// recognises counts (os.Hostname, an identity env variable, a minted ID
// stored in a field, a field or parameter named for the instance); a
// field every replica sets to the same constant, or a shared deployment
// ID, names no replica, and the send stays a duplicated one.

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/signals"
)

// ownReport names the identity that the request of call is keyed by: in
// its body (args.body, through readers over bytes and encodings of a
// struct or map holding it) or in its URL (the argument after args.method
// of an http request builder). "" when neither carries one.
func (r *Result) ownReport(call *ast.CallExpr, a *signals.API) string {
	fl := r.flow()
	if i, ok := a.Arg("body"); ok && i < len(call.Args) {
		if id := fl.payloadIdentity(fl.arg(call, i), 0); id != "" {
			return id
		}
	}
	if a.Kind == "http" {
		if m, ok := a.Arg("method"); ok && m+1 < len(call.Args) {
			if id := fl.payloadIdentity(fl.arg(call, m+1), 0); id != "" {
				return id
			}
		}
	}
	return ""
}

// payloadIdentity: v carries the instance's identity as a value the
// request is built from: the identity itself (a URL path joined with it),
// a reader over or an encoding of a value that holds it, a struct whose
// field or a map whose key or element is set to it, a local variable or
// a captured one every store to which does.
func (fl *flow) payloadIdentity(v ssa.Value, depth int) string {
	if v == nil || depth > mintDepth {
		return ""
	}
	if id := fl.identity(v, 0); id != "" {
		return id
	}
	switch x := unwrap(v).(type) {
	case *ssa.Extract:
		if x.Index == 0 {
			return fl.payloadIdentity(x.Tuple, depth+1)
		}
	case *ssa.Call:
		return fl.encodedIdentity(&x.Call, depth)
	case *ssa.FreeVar:
		id := ""
		for _, b := range bindings(x) {
			if id = fl.payloadIdentity(b, depth+1); id == "" {
				return ""
			}
		}
		return id
	case *ssa.Phi:
		id := ""
		for _, e := range x.Edges {
			if id = fl.payloadIdentity(e, depth+1); id == "" {
				return ""
			}
		}
		return id
	case *ssa.UnOp:
		if x.Op != token.MUL {
			return ""
		}
		if cell := cellOf(x.X); cell != nil {
			return fl.cellIdentity(cell, depth)
		}
	case *ssa.Alloc:
		return fl.cellIdentity(x, depth)
	case *ssa.MakeMap:
		for _, ref := range *x.Referrers() {
			if u, ok := ref.(*ssa.MapUpdate); ok && u.Map == x {
				if id := fl.identity(u.Key, 0); id != "" {
					return id
				}
				if id := fl.identity(u.Value, 0); id != "" {
					return id
				}
			}
		}
	}
	return ""
}

// cellOf: the local variable's cell an address denotes, directly or as a
// closure's captured variable.
func cellOf(addr ssa.Value) *ssa.Alloc {
	switch a := addr.(type) {
	case *ssa.Alloc:
		return a
	case *ssa.FreeVar:
		return capturedCell(a, 0)
	}
	return nil
}

// cellIdentity: a local struct one of whose fields is set to the
// identity (req := T{Name: self}), or a local variable every whole-value
// store to which carries it (body, err = json.Marshal(req)).
func (fl *flow) cellIdentity(cell *ssa.Alloc, depth int) string {
	for _, ref := range *cell.Referrers() {
		fa, ok := ref.(*ssa.FieldAddr)
		if !ok {
			continue
		}
		for _, fref := range *fa.Referrers() {
			if st, ok := fref.(*ssa.Store); ok && st.Addr == fa {
				if id := fl.identity(st.Val, 0); id != "" {
					return id
				}
			}
		}
	}
	id := ""
	for _, ref := range *cell.Referrers() {
		st, ok := ref.(*ssa.Store)
		if !ok || st.Addr != cell {
			continue
		}
		if id = fl.payloadIdentity(st.Val, depth+1); id == "" {
			return ""
		}
	}
	return id
}

// encodedIdentity: c is a reader over bytes (bytes.NewReader,
// strings.NewReader), an encoding (json.Marshal, a Marshal or Encode of an
// encoding package) or a formatting of a value that carries the identity.
func (fl *flow) encodedIdentity(c *ssa.CallCommon, depth int) string {
	callee := c.StaticCallee()
	if callee == nil {
		return ""
	}
	fn, _ := callee.Object().(*types.Func)
	if fn == nil || fn.Pkg() == nil {
		return ""
	}
	p := fn.Pkg().Path()
	switch {
	case (p == "bytes" || p == "strings") && strings.HasPrefix(fn.Name(), "New") && len(c.Args) == 1,
		strings.HasPrefix(p, "encoding/") && mintTransform.MatchString(fn.Name()):
		for _, arg := range c.Args {
			if id := fl.payloadIdentity(arg, depth+1); id != "" {
				return id
			}
		}
	}
	return ""
}
