package leadershiploss

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
)

// A lease whose loss is only a flag (the lock side; flagholder.go reads
// the holders).
//
// A lock client takes a remote lease and renews it from a goroutine it
// starts in the acquire: a loop paced by time calls a renewal whose error
// is tested, and when that renewal fails the loop only logs and clears a
// field of the lock (atomic.StoreInt32(&l.isLocked, 0), l.held.Store(false),
// or closes a channel field of the lock). It cancels no context, calls no
// callback, exits nothing: the field, read by a method of the lock
// (IsLocked() bool, Lost() <-chan struct{}), is the only way a holder can
// learn that the lease is gone. The acquire is marked with a FlagLease
// fact naming those methods, so the holder's package, which sees none of
// this, can ask whether it ever reads them.
//
// No fact when the failure does anything else (a call of a function value,
// a cancel of a context not made in the goroutine, a send, a panic, a call
// of code not known to be logging or bookkeeping, a return past a deferred
// call of such), or when no method of the lock reads the field: unknown
// code gives no report.

// FlagLease marks a function that acquires a lock renewed in the
// background whose failed renewal only changes a field of the lock.
type FlagLease struct {
	Lock    string   // the lock type: package path and name
	Signals []string // its methods that read the field: the only loss signal
	Recv    bool     // the lock is the receiver of the acquire, else its first result
	At      string   // where a failed renewal clears the field (file:line)
	Flag    string   // the field
}

// AFact marks FlagLease as a fact.
func (*FlagLease) AFact() {}

func (f *FlagLease) String() string { return "flagLease(" + f.Lock + "." + f.Flag + ")" }

// exportFlagLeases finds the acquires of this package whose renewal
// goroutine only clears a flag on failure and exports FlagLease on them.
// It returns them for the holders of the same package.
func (c *checker) exportFlagLeases(eff *effects.Result) map[*types.Func]*FlagLease {
	if eff == nil || !c.startsGoroutines() {
		return nil
	}
	out := map[*types.Func]*FlagLease{}
	funcs := eff.SSAFuncs()
	for _, fn := range funcs {
		obj, _ := fn.Object().(*types.Func)
		if obj == nil || fn.Parent() != nil {
			continue
		}
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				g, ok := in.(*ssa.Go)
				if !ok {
					continue
				}
				body := g.Call.StaticCallee()
				if body == nil || body.Blocks == nil {
					continue
				}
				if f := c.flagLease(obj, body, funcs); f != nil {
					out[obj] = f
					c.p.ExportObjectFact(obj, f)
				}
			}
		}
	}
	return out
}

// startsGoroutines: some go statement of the package starts a function
// literal with a loop that clears something (a sync/atomic Store, a field
// set to false or zero, a close): the cheap test before SSA is asked for.
func (c *checker) startsGoroutines() bool {
	found := false
	for _, f := range c.p.Pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			if found {
				return false
			}
			g, ok := n.(*ast.GoStmt)
			if !ok {
				return true
			}
			if lit, ok := ast.Unparen(g.Call.Fun).(*ast.FuncLit); ok && c.loopClears(lit.Body) {
				found = true
			}
			return true
		})
		if found {
			return true
		}
	}
	return false
}

// loopClears: body has a loop in which something is cleared.
func (c *checker) loopClears(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
		default:
			return !found
		}
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.CallExpr:
				if id, ok := ast.Unparen(m.Fun).(*ast.Ident); ok && id.Name == "close" {
					found = true
				}
				if fn := c.callee(m); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "sync/atomic" && strings.HasPrefix(fn.Name(), "Store") {
					found = true
				}
			case *ast.AssignStmt:
				for i, lhs := range m.Lhs {
					if _, ok := lhs.(*ast.SelectorExpr); ok && i < len(m.Rhs) {
						if tv, ok := c.info.Types[m.Rhs[i]]; ok && tv.Value != nil {
							found = found || isFalsyConst(tv.Value)
						}
					}
				}
			}
			return !found
		})
		return false
	})
	return found
}

// flagLease reads the goroutine body started by acquire: a renewal in a
// paced loop whose failure only clears a field of the lock type.
func (c *checker) flagLease(acquire *types.Func, body *ssa.Function, funcs []*ssa.Function) *FlagLease {
	lock, recv := lockOfAcquire(acquire)
	if lock == nil {
		return nil
	}
	for _, b := range body.Blocks {
		ifi, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		failure := errFailureSucc(ifi)
		if failure == nil || len(failure.Preds) != 1 {
			continue
		}
		renewal := errorSource(ifi)
		if renewal == nil || renewal.Parent() != body {
			continue
		}
		if paced, _ := pacing(renewal); !paced {
			continue
		}
		cleared, ok := c.onlyClears(body, failure, lock)
		if !ok {
			continue
		}
		var signals []string
		var field *types.Var
		var at token.Pos
		for _, cl := range cleared {
			if s := signalMethods(lock, cl.field, funcs); len(s) > 0 {
				signals, field, at = s, cl.field, cl.at
			}
		}
		if len(signals) == 0 {
			continue
		}
		pos := c.p.Fset.Position(at)
		return &FlagLease{
			Lock:    lock.Obj().Pkg().Path() + "." + lock.Obj().Name(),
			Signals: signals,
			Recv:    recv,
			At:      filepath.Base(pos.Filename) + ":" + strconv.Itoa(pos.Line),
			Flag:    field.Name(),
		}
	}
	return nil
}

// lockOfAcquire: the lock type of an acquire, a named struct of its
// package that is its receiver or its first result.
func lockOfAcquire(fn *types.Func) (*types.Named, bool) {
	sig := fn.Type().(*types.Signature)
	own := func(t types.Type) *types.Named {
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		n, _ := types.Unalias(t).(*types.Named)
		if n == nil || n.Obj().Pkg() != fn.Pkg() {
			return nil
		}
		if _, ok := n.Underlying().(*types.Struct); !ok {
			return nil
		}
		return n
	}
	if sig.Results().Len() > 0 {
		if n := own(sig.Results().At(0).Type()); n != nil {
			return n, false
		}
	}
	if sig.Recv() != nil {
		if n := own(sig.Recv().Type()); n != nil {
			return n, true
		}
	}
	return nil, false
}

// errFailureSucc: the successor of an `err != nil` (or `err == nil`) test
// taken when the error is set.
func errFailureSucc(ifi *ssa.If) *ssa.BasicBlock {
	bin, ok := ifi.Cond.(*ssa.BinOp)
	if !ok || (bin.Op != token.NEQ && bin.Op != token.EQL) {
		return nil
	}
	if !isNilConst(bin.Y) || !isError(bin.X.Type()) {
		return nil
	}
	succs := ifi.Block().Succs
	if bin.Op == token.NEQ {
		return succs[0]
	}
	return succs[1]
}

func isNilConst(v ssa.Value) bool {
	k, ok := v.(*ssa.Const)
	return ok && k.Value == nil
}

// errorSource: the call whose error the test reads.
func errorSource(ifi *ssa.If) *ssa.Call {
	v := ifi.Cond.(*ssa.BinOp).X
	if e, ok := v.(*ssa.Extract); ok {
		v = e.Tuple
	}
	call, _ := v.(*ssa.Call)
	return call
}

// onlyClears: the blocks the failure successor dominates only log, keep
// books and clear a field of lock (or close a channel field of it), and
// when they leave the goroutine it defers nothing that could stop the
// work. It returns the fields cleared and where.
func (c *checker) onlyClears(body *ssa.Function, failure *ssa.BasicBlock, lock *types.Named) ([]clearedField, bool) {
	var cleared []clearedField
	returns := false
	for _, b := range body.Blocks {
		if !failure.Dominates(b) {
			continue
		}
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case *ssa.Return:
				returns = true
			case *ssa.Send, *ssa.Panic, *ssa.Go, *ssa.Defer, *ssa.MapUpdate:
				return nil, false
			case *ssa.Store:
				if f := lockField(in.Addr, lock); f != nil && isFalsy(in.Val) {
					cleared = append(cleared, clearedField{f, in.Pos()})
					continue
				}
				if !localAddr(in.Addr) {
					return nil, false // a write elsewhere: someone may read it
				}
			case ssa.CallInstruction:
				if f, ok := clearCall(in.Common(), lock); ok {
					if f != nil {
						cleared = append(cleared, clearedField{f, in.Pos()})
					}
					continue
				}
				if !c.quietCall(in.Common(), body) {
					return nil, false
				}
			}
		}
	}
	if len(cleared) == 0 {
		return nil, false
	}
	if returns {
		for _, b := range body.Blocks {
			for _, in := range b.Instrs {
				if d, ok := in.(*ssa.Defer); ok && !c.quietCall(d.Common(), body) {
					if _, ok := clearCall(d.Common(), lock); !ok {
						return nil, false
					}
				}
			}
		}
	}
	return cleared, true
}

type clearedField struct {
	field *types.Var
	at    token.Pos
}

// lockField: addr is the address of a field of lock (l.isLocked).
func lockField(addr ssa.Value, lock *types.Named) *types.Var {
	fa, ok := addr.(*ssa.FieldAddr)
	if !ok {
		return nil
	}
	p, ok := fa.X.Type().Underlying().(*types.Pointer)
	if !ok {
		return nil
	}
	n, _ := types.Unalias(p.Elem()).(*types.Named)
	if n == nil || n.Origin() != lock.Origin() {
		return nil
	}
	return n.Underlying().(*types.Struct).Field(fa.Field)
}

// isFalsy: the constant false or zero.
func isFalsy(v ssa.Value) bool {
	k, ok := v.(*ssa.Const)
	return ok && k.Value != nil && isFalsyConst(k.Value)
}

func isFalsyConst(v constant.Value) bool {
	switch v.Kind() {
	case constant.Bool:
		return !constant.BoolVal(v)
	case constant.Int:
		return constant.Sign(v) == 0
	}
	return false
}

// clearCall: a call that clears a field of lock: sync/atomic's Store
// functions with zero, the Store method of a sync/atomic type field with
// false or zero, close of a channel field. Other calls of sync/atomic
// (bookkeeping) report ok with no field.
func clearCall(cc *ssa.CallCommon, lock *types.Named) (*types.Var, bool) {
	if b, ok := cc.Value.(*ssa.Builtin); ok && b.Name() == "close" {
		if u, ok := cc.Args[0].(*ssa.UnOp); ok && u.Op == token.MUL {
			if f := lockField(u.X, lock); f != nil {
				return f, true
			}
		}
		return nil, false
	}
	fn := funcOf(cc)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "sync/atomic" {
		return nil, false
	}
	if len(cc.Args) == 2 && strings.HasPrefix(fn.Name(), "Store") && isFalsy(cc.Args[1]) {
		return lockField(cc.Args[0], lock), true
	}
	return nil, true
}

// quietCall: a call that cannot tell anyone of the failure: logging, the
// bookkeeping packages, the Stop of a timer or ticker, a cancel of a
// context made in the goroutine itself.
func (c *checker) quietCall(cc *ssa.CallCommon, body *ssa.Function) bool {
	if c.loggingCall(cc) {
		return true
	}
	if fn := funcOf(cc); fn != nil && fn.Pkg() != nil {
		path := fn.Pkg().Path()
		if loggerPackage(path) && !fatalName(fn.Name()) {
			return true
		}
		if bookkeeping(path) && fn.Name() != "AfterFunc" {
			return true
		}
		if path == "sync" && (fn.Name() == "Lock" || fn.Name() == "Unlock" || fn.Name() == "RLock" || fn.Name() == "RUnlock") {
			return true
		}
	}
	if e, ok := cc.Value.(*ssa.Extract); ok && e.Index == 1 {
		if mk, ok := e.Tuple.(*ssa.Call); ok && mk.Parent() == body {
			if f := funcOf(mk.Common()); f != nil && f.Pkg() != nil && f.Pkg().Path() == "context" && strings.HasPrefix(f.Name(), "With") {
				return true // the goroutine's own context: no work outside it uses it
			}
		}
	}
	return false
}

// loggerPackage: a package named for logging, also a project's own copy
// (weed/glog, internal/log).
func loggerPackage(path string) bool {
	if logging(path) {
		return true
	}
	switch path[strings.LastIndex(path, "/")+1:] {
	case "glog", "klog", "log", "logger", "logging", "logs", "logutil", "xlog", "applog":
		return true
	}
	return false
}

func fatalName(name string) bool {
	for _, p := range []string{"Fatal", "Panic", "DPanic", "Exit"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// signalMethods: the methods of lock that read field: a bool result
// computed from it (IsLocked), or the channel itself returned (Lost).
func signalMethods(lock *types.Named, field *types.Var, funcs []*ssa.Function) []string {
	var out []string
	for _, fn := range funcs {
		obj, _ := fn.Object().(*types.Func)
		if obj == nil || fn.Signature.Recv() == nil || fn.Signature.Results().Len() != 1 {
			continue
		}
		if n := namedOf(fn.Signature.Recv().Type()); n == nil || n.Origin() != lock.Origin() {
			continue
		}
		res := fn.Signature.Results().At(0).Type().Underlying()
		_, isChan := res.(*types.Chan)
		b, isBasic := res.(*types.Basic)
		if !isChan && !(isBasic && b.Kind() == types.Bool) {
			continue
		}
		if readsField(fn, field, lock) {
			out = append(out, obj.Name())
		}
	}
	return out
}

// readsField: fn loads the field, or hands its address to a Load.
func readsField(fn *ssa.Function, field *types.Var, lock *types.Named) bool {
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			fa, ok := in.(*ssa.FieldAddr)
			if !ok || lockField(fa, lock) != field {
				continue
			}
			for _, r := range *fa.Referrers() {
				switch r := r.(type) {
				case *ssa.UnOp:
					if r.Op == token.MUL {
						return true
					}
				case ssa.CallInstruction:
					if f := funcOf(r.Common()); f != nil && f.Pkg() != nil && f.Pkg().Path() == "sync/atomic" && strings.HasPrefix(f.Name(), "Load") {
						return true
					}
				}
			}
		}
	}
	return false
}
