package unsafeunlock

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/leadership"
	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
	"github.com/gatesift/gatesift-vet/signals"
)

// hostIdentities reports a lease held under the host name alone: the
// value stored into a knowledge-base owner-identity field (client-go's
// ResourceLockConfig.Identity) can be os.Hostname()'s result with nothing
// per-process added (effects.HostNameOnly). The election's holder check
// compares identities, so two processes on one host (hostNetwork pods on
// one node, two instances on one VM) both count as the holder and both
// lead. Reported at the lock constructor the config is passed to, or at
// the field when the lock is built as a literal.
func hostIdentities(p *rule.Pass, eff *effects.Result) {
	if eff == nil || !importsOwnerIdentity(p) {
		return
	}
	seen := map[token.Pos]bool{}
	for _, fn := range eff.SSAFuncs() {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				st, ok := in.(*ssa.Store)
				if !ok || !ownerIdentityField(p.KB, st.Addr) {
					continue
				}
				host := eff.HostNameOnly(st.Val)
				if host == nil {
					continue
				}
				pos, ctor := reportPos(p, st)
				if !pos.IsValid() || seen[pos] {
					continue
				}
				seen[pos] = true
				at := "its identity"
				if ctor != "" {
					at = ctor + "'s identity"
				}
				p.Report(analysis.Diagnostic{
					Pos: pos,
					// the identity's field first: the inventory files a lock
					// finding under its first related position (the lock)
					Related: []analysis.RelatedInformation{
						{Pos: st.Pos(), Message: "the lease's identity is set here"},
						{Pos: host.Pos(), Message: "the identity is this host name (os.Hostname), with nothing per-process added"},
					},
					Message: "the lease is held under " + at + ", which can be the host name alone (os.Hostname, line " +
						strconv.Itoa(lockfacts.Line(p.Fset, host.Pos())) + "): the election takes the holder's identity for ownership, so a second " +
						"process on the same host (hostNetwork pods on one node, two instances on one machine) counts as " +
						"the holder too, renews the same lease and both lead at once; add a per-process nonce " +
						"(id + \"_\" + uuid.NewString(), as kube-controller-manager does) or use the elector, whose default " +
						"identity is the host name plus a nonce",
				})
			}
		}
	}
}

// importsOwnerIdentity: the package imports a package with an
// owner-identity field, so SSA is built only where one can be set.
func importsOwnerIdentity(p *rule.Pass) bool {
	for _, imp := range p.Pkg.Imports() {
		for _, a := range p.KB.Coordinators {
			if a.Kind == "owner-identity" && a.Pkg == imp.Path() {
				return true
			}
		}
	}
	return false
}

// ownerIdentityField: addr is the address of an owner-identity field.
func ownerIdentityField(kb *signals.Knowledge, addr ssa.Value) bool {
	fa, ok := addr.(*ssa.FieldAddr)
	if !ok {
		return false
	}
	n := leadership.NamedOf(fa.X.Type())
	if n == nil {
		return false
	}
	s, ok := n.Underlying().(*types.Struct)
	return ok && fa.Field < s.NumFields() && leadership.FieldOf(kb, n, s.Field(fa.Field).Name(), "owner-identity") != nil
}

// reportPos: the lock constructor call the config the field belongs to is
// passed to (a local config loaded as an argument at the constructor's
// config position), else the field's store (a composite literal key).
func reportPos(p *rule.Pass, st *ssa.Store) (token.Pos, string) {
	if alloc, ok := st.Addr.(*ssa.FieldAddr).X.(*ssa.Alloc); ok && alloc.Referrers() != nil {
		for _, ref := range *alloc.Referrers() {
			load, ok := ref.(*ssa.UnOp)
			if !ok || load.Op != token.MUL || load.Referrers() == nil {
				continue
			}
			for _, use := range *load.Referrers() {
				call, ok := use.(ssa.CallInstruction)
				if !ok {
					continue
				}
				callee := call.Common().StaticCallee()
				if callee == nil {
					continue
				}
				fn, _ := callee.Object().(*types.Func)
				a := leadership.Kind(p.KB, fn, "lock-new")
				if a == nil {
					continue
				}
				if i, ok := a.Arg("config"); ok && i < len(call.Common().Args) && call.Common().Args[i] == load {
					if ce := enclosingCall(p, call.Common().Pos()); ce != nil {
						return ce.Pos(), callee.Name()
					}
				}
			}
		}
	}
	return st.Pos(), ""
}

// enclosingCall: the call expression whose Lparen is at lparen.
func enclosingCall(p *rule.Pass, lparen token.Pos) *ast.CallExpr {
	for _, f := range p.Pass.Files {
		if f.FileStart <= lparen && lparen <= f.FileEnd {
			path, _ := astutil.PathEnclosingInterval(f, lparen, lparen)
			for _, n := range path {
				if ce, ok := n.(*ast.CallExpr); ok && ce.Lparen == lparen {
					return ce
				}
			}
		}
	}
	return nil
}
