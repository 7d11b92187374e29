package leadershiploss

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
)

// The holders of a lease whose loss is only a flag (flaglease.go).
//
// A holder calls an acquire marked FlagLease and keeps the lock: stores it
// in a field (a file handle's lock, a manager's locker) or works under it
// in a loop. When no function of the package reads the lock's loss signal
// (the methods the fact names) on that field, or, for a lock kept in a
// local, inside the loop the work runs in, a renewal that fails changes
// nothing the holder looks at: after the lease expires a second holder
// takes it and both work. The report is at the acquire, with the place
// the renewal failure only clears the flag.
//
// Silent when the signal is read on the field anywhere in the package or
// in the loop; when the lock kept in a local escapes (handed to a call,
// returned, stored where this does not follow); when a lock kept in a
// local has no loop of work after the acquire (a short section).

// checkFlagHolders reports the acquires of flag-only leases whose holders
// never read the loss signal.
func (c *checker) checkFlagHolders(eff *effects.Result, local map[*types.Func]*FlagLease) {
	if eff == nil || !c.mayHoldFlagLease(local) {
		return
	}
	h := &flagHolders{c: c, local: local, funcs: eff.SSAFuncs(), ifaceTypes: map[*types.Var][]types.Type{}}
	h.indexInterfaceFields()
	at := map[token.Pos]*ast.CallExpr{}
	for _, f := range c.p.Files() {
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				at[call.Lparen] = call
			}
			return true
		})
	}
	for _, fn := range h.funcs {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				call, ok := in.(*ssa.Call)
				if !ok || at[call.Pos()] == nil {
					continue
				}
				lease := h.leaseOf(call.Common())
				if lease == nil {
					continue
				}
				if msg := h.unguarded(call, lease); msg != "" {
					c.p.Report(analysis.Diagnostic{
						Pos: at[call.Pos()].Pos(), End: at[call.Pos()].End(),
						Message: "the lease taken here is renewed in the background, and a failed renewal only clears " +
							lease.Flag + " (" + lease.At + "), read by " + joinNames(lease.Signals) + "; " + msg +
							", so after the lease expires another holder takes it and both do the work",
					})
				}
			}
		}
	}
}

type flagHolders struct {
	c     *checker
	local map[*types.Func]*FlagLease
	funcs []*ssa.Function
	// ifaceTypes: the concrete types this package stores in a field of
	// interface type (a manager's locker), to resolve calls through it
	ifaceTypes map[*types.Var][]types.Type
}

// mayHoldFlagLease: the package has its own FlagLease acquires, or uses a
// function of another package that has the fact or returns a type whose
// methods have it (the constructor of a locker whose RequestLock is one).
func (c *checker) mayHoldFlagLease(local map[*types.Func]*FlagLease) bool {
	if len(local) > 0 {
		return true
	}
	seen := map[*types.Named]bool{}
	for _, obj := range c.info.Uses {
		fn, ok := obj.(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Pkg() == c.p.Pkg {
			continue
		}
		var f FlagLease
		if c.p.ImportObjectFact(fn, &f) {
			return true
		}
		res := fn.Type().(*types.Signature).Results()
		for i := 0; i < res.Len(); i++ {
			n := namedOf(res.At(i).Type())
			if n == nil || seen[n] || n.Obj().Pkg() == nil || n.Obj().Pkg() == c.p.Pkg {
				continue
			}
			seen[n] = true
			ms := types.NewMethodSet(types.NewPointer(n))
			for j := 0; j < ms.Len(); j++ {
				if m, ok := ms.At(j).Obj().(*types.Func); ok && c.p.ImportObjectFact(m, &f) {
					return true
				}
			}
		}
	}
	return false
}

func (h *flagHolders) factOf(fn *types.Func) *FlagLease {
	if fn == nil {
		return nil
	}
	fn = fn.Origin()
	if f := h.local[fn]; f != nil {
		return f
	}
	if fn.Pkg() == nil || fn.Pkg() == h.c.p.Pkg {
		return nil
	}
	var f FlagLease
	if h.c.p.ImportObjectFact(fn, &f) {
		return &f
	}
	return nil
}

// indexInterfaceFields records the concrete types stored in fields of
// interface type.
func (h *flagHolders) indexInterfaceFields() {
	for _, fn := range h.funcs {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				st, ok := in.(*ssa.Store)
				if !ok {
					continue
				}
				f := anyField(st.Addr)
				if f == nil || !types.IsInterface(f.Type()) {
					continue
				}
				if mi, ok := st.Val.(*ssa.MakeInterface); ok {
					h.ifaceTypes[f] = append(h.ifaceTypes[f], mi.X.Type())
				} else {
					h.ifaceTypes[f] = append(h.ifaceTypes[f], nil) // unknown
				}
			}
		}
	}
}

// anyField: addr is the address of a struct field; the field.
func anyField(addr ssa.Value) *types.Var {
	fa, ok := addr.(*ssa.FieldAddr)
	if !ok {
		return nil
	}
	p, ok := fa.X.Type().Underlying().(*types.Pointer)
	if !ok {
		return nil
	}
	s, ok := p.Elem().Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	return s.Field(fa.Field)
}

// loadedField: v is a load of a struct field (m.locker); the field.
func loadedField(v ssa.Value) *types.Var {
	u, ok := v.(*ssa.UnOp)
	if !ok || u.Op != token.MUL {
		return nil
	}
	return anyField(u.X)
}

// leaseOf: the FlagLease of the callee, also through an interface field
// that this package only ever fills with one concrete type.
func (h *flagHolders) leaseOf(cc *ssa.CallCommon) *FlagLease {
	if !cc.IsInvoke() {
		return h.factOf(funcOf(cc))
	}
	f := loadedField(cc.Value)
	if f == nil {
		return nil
	}
	ts := h.ifaceTypes[f]
	if len(ts) == 0 {
		return nil
	}
	for _, t := range ts {
		if t == nil || !types.Identical(t, ts[0]) {
			return nil
		}
	}
	obj, _, _ := types.LookupFieldOrMethod(ts[0], true, cc.Method.Pkg(), cc.Method.Name())
	m, _ := obj.(*types.Func)
	return h.factOf(m)
}

// lockValue: the lock the acquire takes: its receiver or its result.
func lockValue(call *ssa.Call, lease *FlagLease) ssa.Value {
	cc := call.Common()
	if lease.Recv {
		if cc.IsInvoke() {
			return cc.Value
		}
		if len(cc.Args) > 0 {
			return cc.Args[0]
		}
		return nil
	}
	if _, ok := call.Type().(*types.Tuple); !ok {
		return call
	}
	for _, r := range *call.Referrers() {
		if e, ok := r.(*ssa.Extract); ok && e.Index == 0 {
			return e
		}
	}
	return nil
}

// unguarded says why the holder of the lock taken by call never reads
// the loss signal, or "" when it may.
func (h *flagHolders) unguarded(call *ssa.Call, lease *FlagLease) string {
	v := lockValue(call, lease)
	if v == nil {
		return ""
	}
	fields, escapes := h.homes(v)
	if len(fields) > 0 {
		for f := range fields {
			if h.signalReadOn(f, lease) {
				return ""
			}
		}
		return "no code of this package reads " + joinNames(lease.Signals) + " on the lock it keeps in " + anyName(fields)
	}
	if escapes {
		return ""
	}
	loop := loopAfter(call.Block())
	if !h.worksIn(loop, v) {
		return ""
	}
	// the signal read in the loop, or after it (rechecked before the
	// write the loop prepares): only a read before the loop, or none,
	// leaves the loop's work unguarded
	after := map[*ssa.BasicBlock]bool{}
	for b := range loop {
		after[b] = true
		for x := range blocksAfter(b, false) {
			after[x] = true
		}
	}
	for b := range after {
		for _, in := range b.Instrs {
			if ci, ok := in.(ssa.CallInstruction); ok && h.isSignal(ci.Common(), lease) && sameLock(recvOf(ci.Common()), v) {
				return ""
			}
		}
	}
	return "the loop that follows works without reading " + joinNames(lease.Signals)
}

func anyName(fields map[*types.Var]bool) string {
	for f := range fields {
		return f.Name()
	}
	return ""
}

func joinNames(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}

// homes: the fields the lock value is stored in (through phis), and
// whether it also goes where this does not follow.
func (h *flagHolders) homes(v ssa.Value) (map[*types.Var]bool, bool) {
	fields := map[*types.Var]bool{}
	if f := loadedField(v); f != nil {
		fields[f] = true
		return fields, false
	}
	escapes := false
	seen := map[ssa.Value]bool{}
	var walk func(ssa.Value)
	walk = func(v ssa.Value) {
		if seen[v] {
			return
		}
		seen[v] = true
		for _, r := range *v.Referrers() {
			switch r := r.(type) {
			case *ssa.Store:
				if r.Val != v {
					continue
				}
				if f := anyField(r.Addr); f != nil {
					fields[f] = true
				} else {
					escapes = true
				}
			case *ssa.Phi:
				walk(r)
			case *ssa.BinOp, *ssa.If, *ssa.DebugRef:
			case ssa.CallInstruction:
				if recvOf(r.Common()) != v {
					escapes = true
				}
			default:
				escapes = true
			}
		}
	}
	walk(v)
	return fields, escapes
}

// recvOf: the receiver of a method call, or nil.
func recvOf(cc *ssa.CallCommon) ssa.Value {
	if cc.IsInvoke() {
		return cc.Value
	}
	if fn := cc.StaticCallee(); fn != nil && fn.Signature.Recv() != nil && len(cc.Args) > 0 {
		return cc.Args[0]
	}
	return nil
}

// isSignal: a call of one of the lease's signal methods, on its lock
// type or through an interface.
func (h *flagHolders) isSignal(cc *ssa.CallCommon, lease *FlagLease) bool {
	fn := funcOf(cc)
	if fn == nil {
		return false
	}
	named := false
	for _, s := range lease.Signals {
		if fn.Name() == s {
			named = true
		}
	}
	if !named {
		return false
	}
	if cc.IsInvoke() {
		return true
	}
	sig := fn.Type().(*types.Signature)
	n := namedOf(sig.Recv().Type())
	return n != nil && n.Obj().Pkg() != nil && n.Obj().Pkg().Path()+"."+n.Obj().Name() == lease.Lock
}

// signalReadOn: some function of the package calls a signal method on a
// load of field f.
func (h *flagHolders) signalReadOn(f *types.Var, lease *FlagLease) bool {
	for _, fn := range h.funcs {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				ci, ok := in.(ssa.CallInstruction)
				if !ok || !h.isSignal(ci.Common(), lease) {
					continue
				}
				if loadedField(recvOf(ci.Common())) == f {
					return true
				}
			}
		}
	}
	return false
}

// sameLock: r is v, or a phi that v flows into through any number of
// phis (a lock taken in one branch of several).
func sameLock(r, v ssa.Value) bool {
	if r == nil {
		return false
	}
	seen := map[ssa.Value]bool{}
	work := []ssa.Value{v}
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		if x == r {
			return true
		}
		if seen[x] {
			continue
		}
		seen[x] = true
		if refs := x.Referrers(); refs != nil {
			for _, ref := range *refs {
				if p, ok := ref.(*ssa.Phi); ok {
					work = append(work, p)
				}
			}
		}
	}
	return false
}

// loopAfter: the blocks reachable from b that lie on a cycle.
func loopAfter(b *ssa.BasicBlock) map[*ssa.BasicBlock]bool {
	loop := map[*ssa.BasicBlock]bool{}
	for x := range blocksAfter(b, false) {
		if x != b && blocksAfter(x, true)[x] {
			loop[x] = true
		}
	}
	return loop
}

// worksIn: the loop calls something that is neither logging nor a method
// of the lock: work done under it.
func (h *flagHolders) worksIn(loop map[*ssa.BasicBlock]bool, v ssa.Value) bool {
	for b := range loop {
		for _, in := range b.Instrs {
			ci, ok := in.(ssa.CallInstruction)
			if !ok || sameLock(recvOf(ci.Common()), v) || h.c.quietCall(ci.Common(), b.Parent()) {
				continue
			}
			if f := funcOf(ci.Common()); f != nil && f.Pkg() != nil && f.Pkg().Path() == "time" {
				continue
			}
			return true
		}
	}
	return false
}
