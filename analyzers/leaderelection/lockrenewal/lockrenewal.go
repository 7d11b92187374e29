package lockrenewal

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/expiryfilelocks"
	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// Analyzer reports LE3004.
var Analyzer = rule.New(rule.Spec{ID: "LE3004", Run: run, Requires: []*analysis.Analyzer{effects.Analyzer, expiryfilelocks.Analyzer, workAnalyzer},
	FactTypes: []analysis.Fact{new(lockfacts.LeaseWrapper), new(lockfacts.HasLeaseWrappers)}})

type checker struct {
	p        *rule.Pass
	info     *types.Info
	pkg      *lockfacts.Package
	renewers map[*types.Func]bool // package functions that renew some lock
	scripts  map[types.Object]string
	anyRenew bool
	// bounded: contexts of the function being checked that carry a
	// constant deadline shorter than the lock's TTL (context.WithTimeout):
	// calls made with them end before the lock can expire.
	bounded map[types.Object]bool
	decls   map[*types.Func]*ast.FuncDecl   // the package's functions
	depth   int                             // calls followed by unbounded
	ssa     *claimSSA                       // built for queue claims only
	leaseAt map[*ast.CallExpr]*lockfacts.Op // the calls through a project's lease interface
	// work: the functions of the module that run unbounded work
	// (workfact.go); factMode: computing those facts, not judging a lock
	work     *workResult
	factMode bool
	module   string // in factMode, the module's path
}

func run(p *rule.Pass) error {
	c := &checker{p: p, info: p.TypesInfo, renewers: map[*types.Func]bool{}, scripts: map[types.Object]string{}}
	c.work, _ = p.ResultOf[workAnalyzer].(*workResult)
	files := p.Files()
	// a project's lease interface needs no known import; its wrappers are
	// what importers see of this package
	leases := c.leaseOps(files)
	if p.FactsOnly() || len(leases) == 0 && !p.ImportsKnown() {
		return nil
	}
	c.pkg = lockfacts.Scan(p.Pkg, c.info, p.KB, files)
	c.leaseAt = map[*ast.CallExpr]*lockfacts.Op{}
	for _, f := range c.pkg.Funcs {
		mergeOps(f, leases[f.Decl])
		for _, op := range leases[f.Decl] {
			c.leaseAt[op.Call] = op
		}
	}
	c.collectScripts(files)
	c.collectRenewers()
	c.decls = map[*types.Func]*ast.FuncDecl{}
	for _, f := range c.pkg.Funcs {
		if fn, ok := c.info.Defs[f.Decl.Name].(*types.Func); ok {
			c.decls[fn] = f.Decl
		}
	}
	for _, f := range c.pkg.Funcs {
		for _, op := range f.Ops {
			c.check(f, op)
		}
	}
	c.checkClaims()
	return c.checkExpiryFiles()
}

// collectScripts records package variables and locals defined as
// NewScript(constant source).
func (c *checker) collectScripts(files []*ast.File) {
	for _, file := range files {
		ast.Inspect(file, func(n ast.Node) bool {
			var names []*ast.Ident
			var values []ast.Expr
			switch s := n.(type) {
			case *ast.ValueSpec:
				names, values = s.Names, s.Values
			case *ast.AssignStmt:
				for _, l := range s.Lhs {
					id, _ := l.(*ast.Ident)
					names = append(names, id)
				}
				values = s.Rhs
			default:
				return true
			}
			if len(names) != len(values) {
				return true
			}
			for i, v := range values {
				call, ok := ast.Unparen(v).(*ast.CallExpr)
				if !ok || names[i] == nil {
					continue
				}
				fn := lockfacts.Callee(c.info, call)
				if fn == nil || fn.Name() != "NewScript" {
					continue
				}
				for _, a := range call.Args {
					if src, ok := lockfacts.StringConst(c.info, a); ok {
						if obj := c.info.ObjectOf(names[i]); obj != nil {
							c.scripts[obj] = src
						}
					}
				}
			}
			return true
		})
	}
}

// renewsOp: the op extends a lock (or may: a script we cannot read).
func (c *checker) renewsOp(op *lockfacts.Op) bool {
	switch op.Kind {
	case lockfacts.Renew, lockfacts.Expire:
		return true
	case lockfacts.Script:
		src, ok := c.scriptSource(op)
		return !ok || strings.Contains(strings.ToLower(src), "expire")
	case lockfacts.Acquire:
		// SET key token XX PX: a refresh through SetArgs or Do is not an
		// acquire (no NX), so it never reaches here.
	}
	return false
}

func (c *checker) scriptSource(op *lockfacts.Op) (string, bool) {
	if i, ok := op.API.Arg("script"); ok && i < len(op.Call.Args) {
		return lockfacts.StringConst(c.info, op.Call.Args[i])
	}
	if op.Recv != nil {
		if id, ok := ast.Unparen(op.Recv).(*ast.Ident); ok {
			src, ok := c.scripts[c.info.ObjectOf(id)]
			return src, ok
		}
	}
	return "", false
}

// collectRenewers finds the package functions that renew a lock, directly
// or through other package functions.
func (c *checker) collectRenewers() {
	calls := map[*types.Func][]*types.Func{}
	for _, f := range c.pkg.Funcs {
		fn, _ := c.info.Defs[f.Decl.Name].(*types.Func)
		if fn == nil {
			continue
		}
		for _, op := range f.Ops {
			if c.renewsOp(op) {
				c.renewers[fn] = true
				c.anyRenew = true
			}
		}
		ast.Inspect(f.Decl.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if g := lockfacts.Callee(c.info, call); g != nil && g.Pkg() == c.p.Pkg {
					calls[fn] = append(calls[fn], g.Origin())
				}
			}
			return true
		})
	}
	for changed := true; changed; {
		changed = false
		for fn, callees := range calls {
			if c.renewers[fn] {
				continue
			}
			for _, g := range callees {
				if c.renewers[g] {
					c.renewers[fn], changed = true, true
					break
				}
			}
		}
	}
}

// longTTL: a lock held this long is a once-per-period throttle more often
// than a mutex around work; precision first, such locks are not judged.
const longTTL = 10 * time.Minute

// held describes an acquired fixed-TTL lock.
type held struct {
	op     *lockfacts.Op
	handle string // handle expression text ("mu", "lock"), or ""
	key    string // KeyID for key-based locks, or ""
	ttl    string // for messages
	ttlDur time.Duration
	fix    string
	// lease: an Azure Blob lease held by the lease client h.handle; kind
	// is "blob" or "container".
	lease string
}

func (c *checker) check(f *lockfacts.Func, op *lockfacts.Op) {
	h := c.heldLock(f, op)
	if h == nil || h.ttlDur >= longTTL {
		return
	}
	// Renewal anywhere in the function, or through a package function it
	// calls, or a goroutine that gets the handle: silent.
	renewed := false
	for _, o := range f.Ops {
		if !c.renewsOp(o) || o == op {
			continue
		}
		if h.lease != "" {
			// a lease is renewed by a loop or a goroutine; one RenewLease
			// before the work only restarts the same fixed duration
			if o.Kind == lockfacts.Renew && repeated(f.Decl.Body, o.Call) {
				renewed = true
			}
			continue
		}
		if o.Kind == lockfacts.Renew || o.Kind == lockfacts.Script || h.key == "" || o.KeyID() == h.key {
			renewed = true
		}
	}
	if renewed || c.renewedElsewhere(f, h) {
		return
	}
	path := lockfacts.PathTo(f.Decl.Body, op.Call)
	block, idx := lockfacts.EnclosingBlock(path)
	if block == nil {
		return
	}
	// region: statements after the acquire's statement in its block, plus
	// the body of an if/switch whose header holds the acquire
	var region []ast.Stmt
	if st, ok := block[idx].(*ast.IfStmt); ok && !lockfacts.Inside(op.Call, st.Body) && !c.errNotNil(st.Cond) {
		region = append(region, st.Body) // not the `err != nil` failure branch
	}
	region = append(region, block[idx+1:]...)
	if after, ok := retryLoop(path, block, idx, op.Call); ok {
		region = after
	} else if after, ok := c.flagLoop(path, op.Call); ok {
		region = after
	}
	end := token.NoPos
	if len(region) > 0 {
		end = region[len(region)-1].End()
	}
	if rel := c.releasePos(f, h, op); rel.IsValid() && rel < end {
		end = rel
	}
	c.bounded = c.deadlines(f.Decl.Body, h)
	var work ast.Node
	var what string
	escapes := false
	for _, st := range region {
		if st.Pos() >= end {
			break
		}
		ast.Inspect(st, func(n ast.Node) bool {
			if n == nil || escapes || n.Pos() >= end {
				return false
			}
			switch x := n.(type) {
			case *ast.FuncLit:
				if h.lease != "" || h.isLease() {
					// a closure that only releases the lease renews nothing
					if c.closureRenews(x, h) {
						escapes = true
					}
				} else if mentions(x, h) {
					escapes = true // a closure that sees the lock may renew it
				}
				return false
			case *ast.GoStmt:
				if mentions(x, h) || c.callRenews(x.Call, h) {
					escapes = true
				}
				return false
			case *ast.CallExpr:
				if c.callRenews(x, h) {
					escapes = true
					return false
				}
			}
			if work == nil {
				if w, ok := c.unbounded(n, h); ok {
					work, what = n, w
				}
			}
			return true
		})
	}
	if escapes {
		return
	}
	if work != nil && h.lease != "" {
		c.p.Reportf(op.Call, []analysis.RelatedInformation{rule.Related(work, "work of unbounded duration under the lease: %s", what)},
			"%s takes the %s lease %s for a fixed %s and holds it around work of unbounded duration (%s, line %d) without renewing it: "+
				"when the work outlasts %s the lease expires mid-work, another replica acquires it and runs the same work at the same time; %s, "+
				"or run the work under the elector (elector/azblobstore), which renews the lease and cancels the work on loss",
			op.What(), h.lease, h.handle, lockfacts.FmtDuration(h.ttlDur), what, lockfacts.Line(c.p.Fset, work.Pos()),
			lockfacts.FmtDuration(h.ttlDur), h.fix)
		return
	}
	if work != nil && h.isLease() && op.Lease.Concrete {
		c.p.Reportf(op.Call, []analysis.RelatedInformation{rule.Related(work, "work of unbounded duration under the lease: %s", what)},
			"%s takes %s with a TTL of %s fixed inside %s and holds it around work of unbounded duration (%s, line %d) without renewing it "+
				"(no call of its %s, and %s starts no renewal): the lock service expires the lease after %s whether or not the work is done, "+
				"so another replica takes it and runs the same work at the same time; %s, or take it through a constructor that renews it in the background",
			lockfacts.ExprText(op.Call.Fun), op.LeaseLabel(), lockfacts.FmtDuration(h.ttlDur), op.Lease.Acquire, what, lockfacts.Line(c.p.Fset, work.Pos()),
			op.Lease.Renew, op.Lease.Acquire, lockfacts.FmtDuration(h.ttlDur), h.fix)
		return
	}
	if work != nil && h.isLease() {
		c.p.Reportf(op.Call, []analysis.RelatedInformation{rule.Related(work, "work of unbounded duration under the lease: %s", what)},
			"%s takes %s with a fixed TTL of %s and holds it around work of unbounded duration (%s, line %d) without ever calling its %s: "+
				"the interface lets the lease expire after the TTL whatever store is behind it, so when the work outlasts %s another replica "+
				"takes it and runs the same work at the same time; %s, or run the work under the elector, which renews the lease and cancels the work on loss",
			lockfacts.ExprText(op.Call.Fun), op.LeaseLabel(), lockfacts.FmtDuration(h.ttlDur), what, lockfacts.Line(c.p.Fset, work.Pos()), op.Lease.Renew,
			lockfacts.FmtDuration(h.ttlDur), h.fix)
		return
	}
	if work != nil {
		c.p.Reportf(op.Call, []analysis.RelatedInformation{rule.Related(work, "work of unbounded duration under the lock: %s", what)},
			"%s takes %s with a fixed %s and holds it around work of unbounded duration (%s, line %d) without ever extending it: "+
				"when the work outlasts the TTL the lock expires mid-work, another replica takes it and runs the same work at the same time; "+
				"%s while working and stop when that fails, or run the work under the elector, which renews the lease and cancels the work on loss",
			op.What(), h.label(), h.ttl, what, lockfacts.Line(c.p.Fset, work.Pos()), h.fix)
		return
	}
	if h.lease != "" {
		c.checkLeaseEscape(f, h)
		return
	}
	if h.isLease() {
		return // handed to the caller: the interface lets it renew
	}
	c.checkEscape(f, h, path)
}

func (h *held) label() string {
	if h.handle != "" && h.op.Key == nil {
		return "the lock " + h.handle
	}
	return "the lock " + h.op.KeyLabel()
}

// renewedElsewhere: a handle kept in a field (s.mu) that some function of
// the package renews (a keep-alive method started elsewhere).
func (c *checker) renewedElsewhere(in *lockfacts.Func, h *held) bool {
	if h.handle == "" || !strings.Contains(h.handle, ".") {
		return false
	}
	field := h.handle[strings.LastIndexByte(h.handle, '.'):]
	for _, f := range c.pkg.Funcs {
		if in.Recv != "" && f.Recv != "" && f.Recv != in.Recv {
			continue // another type's field
		}
		for _, o := range f.Ops {
			if o.Kind == lockfacts.Renew && o.Recv != nil && strings.HasSuffix(lockfacts.ExprText(o.Recv), field) {
				return true
			}
		}
	}
	return false
}

// heldLock returns the fixed-TTL lock op acquires, or nil.
func (c *checker) heldLock(f *lockfacts.Func, op *lockfacts.Op) *held {
	switch {
	case op.Lease != nil:
		// a project's lease interface: judged only with a constant TTL
		if op.Kind != lockfacts.Acquire || !op.TTLKnown || op.TTL <= 0 || op.Recv == nil {
			return nil
		}
		h := &held{op: op, handle: lockfacts.ExprText(op.Recv), ttlDur: op.TTL, ttl: ttlText(op)}
		every := lockfacts.FmtDuration((op.TTL / 3).Truncate(100 * time.Millisecond))
		h.fix = "call " + h.handle + "." + op.Lease.Renew + "(ctx, ttl) from a goroutine every " + every +
			" (a third of the TTL) while working and cancel the work when it fails"
		if op.Lease.Concrete {
			h.fix = "call " + h.handle + "." + op.Lease.Renew + " with the TTL from a goroutine every " + every +
				" (a third of the TTL) while working and cancel the work when it fails"
		} else if op.Lease.Via != "" {
			h.fix = "extend it with " + op.Lease.Name + "." + op.Lease.Renew + " (or a wrapper of it) from a goroutine every " + every +
				" (a third of the TTL) while working and cancel the work when that fails"
		}
		return h
	case op.Kind == lockfacts.Lock && op.Recv != nil && isRedsync(op.API.Pkg):
		h := &held{op: op, handle: lockfacts.ExprText(op.Recv), fix: "call " + lockfacts.ExprText(op.Recv) + ".ExtendContext(ctx) periodically (a goroutine with a ticker at a third of the expiry)"}
		h.ttl = "expiry (set when the mutex was built)"
		if m := c.mutexFor(f, h.handle); m != nil {
			h.ttl, h.ttlDur = redsyncExpiry(c.info, c.p, m)
			if m.Key != nil {
				h.op = &lockfacts.Op{Call: op.Call, API: op.API, Key: m.Key, KeyConst: m.KeyConst, IsKeyConst: m.IsKeyConst}
			}
		}
		return h
	case op.Kind == lockfacts.Acquire && op.API.Name == "Obtain":
		h := &held{op: op}
		if lhs := lockfacts.AssignedTo(f.Decl.Body, op.Call); lhs != "" && lhs != "_" {
			h.handle = lhs
		}
		h.ttl = ttlText(op)
		if op.TTLKnown {
			h.ttlDur = op.TTL
		}
		h.fix = "call lock.Refresh(ctx, ttl, nil) periodically (a goroutine with a ticker at a third of the TTL)"
		return h
	case op.Kind == lockfacts.Lease && op.API.Kind == "lease-acquire" && op.Recv != nil:
		// Azure Blob lease: the lease client is the handle. Only a constant
		// fixed duration is judged (-1 is LE3001's; out of 15..60 s the
		// service rejects the call).
		if !op.TTLKnown || op.TTL < 15*time.Second || op.TTL > 60*time.Second {
			return nil
		}
		h := &held{op: op, handle: lockfacts.ExprText(op.Recv), ttlDur: op.TTL, lease: "blob"}
		if strings.HasPrefix(op.API.Recv, "Container") {
			h.lease = "container"
		}
		args := "(ctx, nil)"
		if op.API.Recv == "BlobURL" || op.API.Recv == "ContainerURL" { // the legacy azure-storage-blob-go
			args = "(ctx, leaseID, azblob.ModifiedAccessConditions{})"
		}
		h.ttl = "duration of " + lockfacts.FmtDuration(op.TTL)
		h.fix = "call " + h.handle + ".RenewLease" + args + " from a goroutine every " + lockfacts.FmtDuration((op.TTL / 3).Truncate(time.Second)) +
			" (a third of the lease) and cancel the work when a renewal fails, release with " + h.handle + ".ReleaseLease on exit"
		return h
	case op.Kind == lockfacts.Acquire && !op.NoTTL && op.Key != nil && c.pkg.Lockish(f, op):
		h := &held{op: op, key: op.KeyID(), ttl: ttlText(op)}
		if op.TTLKnown {
			h.ttlDur = op.TTL
		}
		h.fix = "extend the key periodically with a compare-and-PEXPIRE script (only while it still holds your token)"
		return h
	}
	return nil
}

func ttlText(op *lockfacts.Op) string {
	if op.TTLKnown {
		return "TTL of " + lockfacts.FmtDuration(op.TTL)
	}
	if op.TTLExpr != nil {
		return "TTL (" + lockfacts.ExprText(op.TTLExpr) + ")"
	}
	return "TTL"
}

// releasePos is the first non-deferred release of the lock after op.
func (c *checker) releasePos(f *lockfacts.Func, h *held, op *lockfacts.Op) token.Pos {
	// deferred calls, and the calls inside a deferred closure, run at
	// the end of the function
	deferred := map[*ast.CallExpr]bool{}
	ast.Inspect(f.Decl.Body, func(n ast.Node) bool {
		if d, ok := n.(*ast.DeferStmt); ok {
			ast.Inspect(d.Call, func(m ast.Node) bool {
				if call, ok := m.(*ast.CallExpr); ok {
					deferred[call] = true
				}
				return true
			})
		}
		return true
	})
	for _, o := range f.Ops {
		if o.Call.Pos() <= op.Call.Pos() || deferred[o.Call] {
			continue
		}
		switch o.Kind {
		case lockfacts.Unlock, lockfacts.Break:
			if h.handle != "" && lockfacts.ExprText(o.Recv) == h.handle {
				return o.Call.Pos()
			}
		case lockfacts.Delete, lockfacts.Script:
			if h.key != "" && o.KeyID() == h.key {
				return o.Call.Pos()
			}
		}
	}
	return token.NoPos
}

// mentions reports whether n refers to the lock's handle or key text.
func mentions(n ast.Node, h *held) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if found {
			return false
		}
		if e, ok := m.(ast.Expr); ok {
			t := lockfacts.ExprText(e)
			if (h.handle != "" && t == h.handle) || (h.op.Key != nil && !h.op.IsKeyConst && t == lockfacts.ExprText(h.op.Key)) ||
				(h.op.IsKeyConst && h.op.Key != nil && t == lockfacts.ExprText(h.op.Key)) {
				found = true
			}
		}
		return true
	})
	return found
}

// mentionsAny reports whether n refers to one of the expression texts.
func mentionsAny(n ast.Node, names map[string]bool) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if e, ok := m.(ast.Expr); ok && !found && names[lockfacts.ExprText(e)] {
			found = true
		}
		return !found
	})
	return found
}

// callRenews: a call of a package function that renews locks, or the
// handle passed to code outside the standard library.
func (c *checker) callRenews(call *ast.CallExpr, h *held) bool {
	fn := lockfacts.Callee(c.info, call)
	if fn != nil && c.renewers[fn.Origin()] {
		return true
	}
	if h.handle == "" {
		return false
	}
	if h.isLease() && fn != nil && c.decls[fn.Origin()] != nil {
		// a function of the package: it renews the lease only by calling
		// the interface's renewal, which renewers knows
		return false
	}
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && lockfacts.ExprText(sel.X) == h.handle {
		return false // the handle's own methods (Unlock, Valid, TTL)
	}
	if fn != nil && fn.Pkg() != nil && lockfacts.StdPath(fn.Pkg().Path(), c.p.Pkg.Path()) {
		return false
	}
	for _, a := range call.Args {
		if lockfacts.ExprText(a) == h.handle {
			return true
		}
	}
	return false
}

// repeated reports whether call runs more than once or beside the work: it
// lies in a function literal (a goroutine, a ticker callback) or a loop of
// body.
func repeated(body *ast.BlockStmt, call *ast.CallExpr) bool {
	for _, n := range lockfacts.PathTo(body, call) {
		switch n.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			return true
		}
	}
	return false
}

// closureRenews reports whether a function literal may renew the lease: it
// renews some lock, calls a package function that does, or hands the lease
// client to code outside the standard library. A deferred closure that only
// releases the lease does not.
func (c *checker) closureRenews(lit *ast.FuncLit, h *held) bool {
	found := false
	ast.Inspect(lit, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		if op := lockfacts.Classify(c.info, c.p.KB, call); op != nil && c.renewsOp(op) {
			found = true
		} else if op := c.leaseAt[call]; op != nil && c.renewsOp(op) {
			found = true
		} else if c.callRenews(call, h) {
			found = true
		}
		return !found
	})
	return found
}
