package lockfacts

import (
	"go/ast"
	"go/types"
	"strings"
	"time"

	"github.com/gatesift/gatesift-vet/signals"
)

// This file recognises a project's own lease contract: an interface whose
// acquire takes the lease's time to live as a time.Duration, with a renewal
// method that takes one too and a release method,
//
//	type Lock interface {
//		Obtain(ctx context.Context, ttl time.Duration) error
//		Refresh(ctx context.Context, ttl time.Duration) error
//		Release(ctx context.Context) error
//	}
//
// and the project's functions that forward to it (a method whose body
// passes its own duration parameter to the acquire is that acquire). The
// contract is what is judged, not an implementation: whichever store is
// behind the interface (an in-memory one for tests included), a caller that
// passes a TTL and never calls the renewal holds a lock that the contract
// lets expire. An acquire taking a duration with no renewal beside it is a
// wait timeout as often as a lease, and is not recognised.

// LeaseKind is the signals.API Kind of the operations this file makes.
const LeaseKind = "lease-iface"

// LeaseIface names the lease-shaped interface an operation goes through.
type LeaseIface struct {
	Name                    string // the interface as the code names it: "sessions.Lock"
	Acquire, Renew, Release string // its method names
	// Via is the wrapper called, when the call is not the interface's own
	// method ("ObtainLock").
	Via string
	// Concrete: Name is a project's lock handle type, not an interface,
	// and Acquire its constructor that fixes the TTL (leaseconcrete.go).
	Concrete bool
}

// LeaseWrapper is the fact that a function or method forwards to a
// lease-shaped interface: called, it acquires, renews or releases the lease.
type LeaseWrapper struct {
	Role Kind // Acquire, Renew or Unlock
	// TTL is the index of the duration parameter forwarded as the TTL
	// (Acquire and Renew), -1 for a release.
	TTL int
	// Handle is the index of the parameter that holds the lease, for a
	// function; -1 for a method, whose receiver holds it.
	Handle int
	// Result: the lease is the function's result (a constructor of a
	// concrete lease type), and FixedTTL the TTL its body fixes.
	Result   bool
	FixedTTL time.Duration
	Iface    LeaseIface
}

// AFact marks LeaseWrapper as an analysis fact.
func (*LeaseWrapper) AFact() {}

func (w *LeaseWrapper) String() string {
	if w.Result {
		return "lease acquire of " + w.Iface.Name + " with a fixed TTL of " + FmtDuration(w.FixedTTL)
	}
	return "lease " + string(w.Role) + " via " + w.Iface.Name + "." + w.method()
}

func (w *LeaseWrapper) method() string {
	switch w.Role {
	case Acquire:
		return w.Iface.Acquire
	case Renew:
		return w.Iface.Renew
	}
	return w.Iface.Release
}

// HasLeaseWrappers is the package fact that some function of the package
// has a LeaseWrapper fact: importers ask for function facts only of
// packages that have it.
type HasLeaseWrappers struct{}

// AFact marks HasLeaseWrappers as an analysis fact.
func (*HasLeaseWrappers) AFact() {}

func (*HasLeaseWrappers) String() string { return "has lease wrappers" }

// LeaseShapes caches which interfaces are lease-shaped.
type LeaseShapes struct {
	seen map[*types.Interface]*LeaseIface
	self *types.Package
}

// NewLeaseShapes returns an empty cache for the package self (which names
// interfaces without its own package name).
func NewLeaseShapes(self *types.Package) *LeaseShapes {
	return &LeaseShapes{seen: map[*types.Interface]*LeaseIface{}, self: self}
}

// Of returns the lease contract of the interface type t, or nil: a method
// named like an acquire (Obtain, Acquire, Lock, TryLock...) and one named
// like a renewal (Refresh, Extend, Renew, KeepAlive...), each with a
// time.Duration parameter, and one named like a release (Release, Unlock).
func (s *LeaseShapes) Of(t types.Type) *LeaseIface {
	iface, ok := t.Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	if l, ok := s.seen[iface]; ok {
		return l
	}
	var l *LeaseIface
	var acquire, renew, release string
	for i := 0; i < iface.NumMethods(); i++ {
		m := iface.Method(i)
		sig := m.Type().(*types.Signature)
		switch {
		case acquireName(m.Name()) && durationParam(sig) >= 0 && acquire == "":
			acquire = m.Name()
		case renewName(m.Name()) && durationParam(sig) >= 0 && renew == "":
			renew = m.Name()
		case releaseName(m.Name()) && release == "":
			release = m.Name()
		}
	}
	if acquire != "" && renew != "" && release != "" {
		l = &LeaseIface{Name: types.TypeString(t, types.RelativeTo(s.self)), Acquire: acquire, Renew: renew, Release: release}
		if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil {
			l.Name = n.Obj().Pkg().Name() + "." + n.Obj().Name()
		}
	}
	s.seen[iface] = l
	return l
}

// renewName: Refresh, Extend, Renew, KeepAlive, Heartbeat, RefreshLock,
// ExtendLease, and Update or Touch of the lease itself (UpdateLease,
// TouchLock, UpdateTTL; not Update alone, which may write anything).
func renewName(name string) bool {
	if verbName(name, "refresh", "extend", "renew", "keepalive", "heartbeat") {
		return true
	}
	for _, v := range []string{"Update", "Touch"} {
		rest, ok := strings.CutPrefix(name, v)
		if !ok {
			continue
		}
		for _, obj := range []string{"Lease", "Lock", "TTL", "Expir"} {
			if strings.HasPrefix(rest, obj) {
				return true
			}
		}
	}
	return false
}

// durationParam returns the index of sig's first time.Duration parameter,
// or -1.
func durationParam(sig *types.Signature) int {
	for i := 0; i < sig.Params().Len(); i++ {
		if isDuration(sig.Params().At(i).Type()) {
			return i
		}
	}
	return -1
}

func isDuration(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Duration"
}

// LeaseOp classifies a call of a lease-shaped interface's acquire, renewal
// or release method, or of a function whose wrapper fact wrapper returns
// (nil when it has none), as an Op of Kind Acquire, Renew or Unlock with
// API.Kind LeaseKind: Recv is the lease's handle (the interface value, or
// the wrapper's receiver or lease argument), TTLExpr the TTL argument.
func LeaseOp(info *types.Info, shapes *LeaseShapes, wrapper func(*types.Func) *LeaseWrapper, call *ast.CallExpr) *Op {
	fn := Callee(info, call)
	if fn == nil {
		return nil
	}
	sig := fn.Type().(*types.Signature)
	var w *LeaseWrapper
	direct := sig.Recv() != nil && types.IsInterface(sig.Recv().Type())
	if direct {
		recv := sig.Recv()
		l := shapes.Of(recv.Type())
		if l == nil {
			return nil
		}
		w = &LeaseWrapper{TTL: -1, Handle: -1, Iface: *l}
		switch fn.Name() {
		case l.Acquire:
			w.Role, w.TTL = Acquire, durationParam(sig)
		case l.Renew:
			w.Role, w.TTL = Renew, durationParam(sig)
		case l.Release:
			w.Role = Unlock
		default:
			return nil
		}
	} else if w = wrapper(fn.Origin()); w == nil {
		return nil
	}
	op := &Op{Call: call, Kind: w.Role, Spread: call.Ellipsis.IsValid()}
	l := w.Iface
	if !direct {
		l.Via = fn.Name()
	}
	op.Lease = &l
	op.API = &signals.API{Pkg: pkgPath(fn), Name: fn.Name(), Kind: LeaseKind}
	if w.Result {
		// the handle is what the call's result is assigned to: the
		// caller knows the statement
		op.TTLKnown, op.TTL = true, w.FixedTTL
	} else if w.Handle >= 0 {
		if w.Handle < len(call.Args) {
			op.Recv = call.Args[w.Handle]
		}
	} else if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && info.Selections[sel] != nil {
		op.Recv = sel.X
	}
	if w.TTL >= 0 && w.TTL < len(call.Args) && !op.Spread {
		op.TTLExpr = call.Args[w.TTL]
		if d, ok := IntConst(info, op.TTLExpr); ok {
			op.TTLKnown, op.TTL = true, time.Duration(d)
		}
	}
	return op
}

func pkgPath(fn *types.Func) string {
	if fn.Pkg() == nil {
		return ""
	}
	return fn.Pkg().Path()
}

// LeaseWrapperOf returns the wrapper fact fd earns from the lease
// operations in its body (ops, as LeaseOp makes them), or nil. An acquire
// or renewal wrapper passes one of its own time.Duration parameters as the
// TTL and, for an acquire, renews and releases nothing (a function that
// acquires, runs and releases is a scope, not an acquire); a release wrapper is named like
// one (ReleaseLock, Unlock). The lease must be the method's receiver (or
// reached from it: s.Lock) or, for a function, one of its parameters.
func LeaseWrapperOf(info *types.Info, fd *ast.FuncDecl, ops []*Op) *LeaseWrapper {
	fn, ok := info.Defs[fd.Name].(*types.Func)
	if !ok || fd.Body == nil {
		return nil
	}
	sig := fn.Type().(*types.Signature)
	param := func(e ast.Expr) int {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return -1
		}
		obj := info.Uses[id]
		for i := 0; i < sig.Params().Len(); i++ {
			if sig.Params().At(i) == obj {
				return i
			}
		}
		return -1
	}
	// handle: -1 for the receiver, a parameter index, or -2 for neither
	handle := func(e ast.Expr) int {
		if e == nil {
			return -2
		}
		root := e
		for {
			switch x := ast.Unparen(root).(type) {
			case *ast.SelectorExpr:
				root = x.X
				continue
			case *ast.StarExpr:
				root = x.X
				continue
			case *ast.CallExpr: // t.lease().Extend: a method of the receiver
				root = x.Fun
				continue
			}
			break
		}
		id, ok := ast.Unparen(root).(*ast.Ident)
		if !ok {
			return -2
		}
		if sig.Recv() != nil && info.Uses[id] == sig.Recv() {
			return -1
		}
		if i := param(id); i >= 0 && sig.Recv() == nil {
			return i
		}
		return -2
	}
	// an acquire that also renews or releases is not one its caller holds
	// unrenewed
	scoped := false
	for _, op := range ops {
		if (op.Kind == Unlock || op.Kind == Renew) && op.Lease != nil {
			scoped = true
		}
	}
	for _, op := range ops {
		if op.Lease == nil {
			continue
		}
		h := handle(op.Recv)
		if h == -2 {
			continue
		}
		l := *op.Lease
		l.Via = ""
		switch op.Kind {
		case Acquire, Renew:
			if op.Kind == Acquire && scoped {
				continue
			}
			if i := param(op.TTLExpr); i >= 0 && isDuration(sig.Params().At(i).Type()) {
				return &LeaseWrapper{Role: op.Kind, TTL: i, Handle: h, Iface: l}
			}
		case Unlock:
			if releaseName(fd.Name.Name) {
				return &LeaseWrapper{Role: Unlock, TTL: -1, Handle: h, Iface: l}
			}
		}
	}
	return nil
}

// LeaseLabel is how a message names the lease an op takes: "the
// sessions.Lock lease session (through ObtainLock)".
func (op *Op) LeaseLabel() string {
	if op.Lease == nil {
		return "the lease"
	}
	s := "the " + op.Lease.Name + " lease"
	if op.Recv != nil {
		s += " " + ExprText(op.Recv)
	}
	if op.Lease.Via != "" {
		s += " (through " + op.Lease.Via + ")"
	}
	return s
}
