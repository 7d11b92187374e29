package unsafeunlock

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/analyzers/expiryfilelocks"
	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/projectlocks"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
)

// Analyzer reports LE3002.
var Analyzer = rule.New(rule.Spec{ID: "LE3002", Run: run, Requires: []*analysis.Analyzer{projectlocks.Analyzer, expiryfilelocks.Analyzer, effects.Analyzer}})

func run(p *rule.Pass) error {
	info := p.TypesInfo
	files := p.Files()
	if p.ImportsKnown() {
		pkg := lockfacts.Scan(p.Pkg, info, p.KB, files)
		for _, f := range pkg.Funcs {
			redisDeletes(p, pkg, f)
			sqlReleases(p, f)
			leaseBreaks(p, pkg, f)
		}
	}
	// methods of this package that take a distributed lock (their body
	// uses a lock API of the knowledge base)
	locking := map[*types.Func]bool{}
	if p.ImportsKnown() {
		for _, f := range lockfacts.Scan(p.Pkg, info, p.KB, files).Funcs {
			if len(f.Ops) > 0 {
				if fn, ok := info.Defs[f.Decl.Name].(*types.Func); ok {
					locking[fn] = true
				}
			}
		}
	}
	for _, fd := range lockfacts.Funcs(files) {
		discardedLock(p, fd, locking)
	}
	if p.ImportsKnown() || projectlocks.Carries(p) {
		if err := projectLocks(p); err != nil {
			return err
		}
	}
	if p.ImportsKnown() {
		fileLocks(p)
		flockRemovals(p)
		eff, _ := p.Pass.ResultOf[effects.Analyzer].(*effects.Result)
		hostIdentities(p, eff)
		if err := expiryFileLocks(p); err != nil {
			return err
		}
	}
	return nil
}

// releaseByName: constant SQL that releases a row of a table named like a
// lock by its name only (no owner or token predicate, no expiry).
func releaseByName(s *lockfacts.Statement) bool {
	return s.LockTable && s.NamePred && !s.OwnerPred && !s.Expiry &&
		(s.Verb == "delete" || s.Verb == "update" && s.OwnerCleared)
}

// redisDeletes reports plain deletes of lock keys.
func redisDeletes(p *rule.Pass, pkg *lockfacts.Package, f *lockfacts.Func) {
	watched := watchBodies(p.TypesInfo, f.Decl.Body)
	for _, op := range f.Ops {
		if op.Kind != lockfacts.Delete {
			continue
		}
		acq := pkg.AcquireOf(f, op)
		if acq == nil {
			continue
		}
		if inside(op.Call.Pos(), watched) {
			continue // WATCH ... MULTI DEL EXEC: checked optimistically
		}
		if get := readsKey(f, op); get != nil {
			p.Reportf(op.Call, []analysis.RelatedInformation{rule.Related(get.Call, "the ownership check, a separate round trip")},
				"%s deletes the lock %s after checking ownership with a separate %s (line %d): the check and the delete are not atomic, "+
					"so the lock can expire and be taken by another replica between them, and this delete then frees that replica's lock; "+
					"compare and delete in one step (Eval of a get-compare-del Lua script), or use bsm/redislock, redsync or the elector",
				op.What(), op.KeyLabel(), get.What(), lockfacts.Line(p.Fset, get.Call.Pos()))
			continue
		}
		var related []analysis.RelatedInformation
		related = append(related, rule.Related(acq.Call, "the lock is taken here"))
		p.Reportf(op.Call, related,
			"%s deletes the lock %s without checking that this replica still holds it: if the lock expired while the work ran "+
				"and another replica took it, this release frees that replica's lock and a third replica starts the same work; "+
				"delete only if the value is still your token, atomically (Eval of a get-compare-del Lua script), "+
				"or use bsm/redislock, redsync or the elector",
			op.What(), op.KeyLabel())
	}
}

// readsKey returns the read of op's key that precedes the delete in f.
func readsKey(f *lockfacts.Func, op *lockfacts.Op) *lockfacts.Op {
	for _, o := range f.Ops {
		if o.Kind == lockfacts.Get && o.Call.Pos() < op.Call.Pos() && o.KeyID() == op.KeyID() {
			return o
		}
	}
	return nil
}

// watchBodies returns the function literals passed to Watch calls (go-redis
// optimistic transactions).
func watchBodies(info *types.Info, body *ast.BlockStmt) []ast.Node {
	var out []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn := lockfacts.Callee(info, call)
		if fn == nil || fn.Name() != "Watch" {
			return true
		}
		for _, a := range call.Args {
			if lit, ok := a.(*ast.FuncLit); ok {
				out = append(out, lit)
			}
		}
		return true
	})
	return out
}

func inside(pos token.Pos, nodes []ast.Node) bool {
	for _, n := range nodes {
		if n.Pos() <= pos && pos < n.End() {
			return true
		}
	}
	return false
}

// sqlReleases reports lock-row deletes without an owner predicate and
// session advisory locks through a pool.
func sqlReleases(p *rule.Pass, f *lockfacts.Func) {
	for _, op := range f.Ops {
		if op.Kind != lockfacts.SQL {
			continue
		}
		s := op.Stmt
		switch {
		case releaseByName(s):
			p.Reportf(op.Call, nil,
				"%s releases a lock row of table %s by name only, with no owner or token predicate: if this replica's lock "+
					"expired or was taken over, the statement frees the current holder's lock and another replica starts the same work; "+
					"add AND owner = $me (or the fencing token) to the WHERE clause and check the rows affected, or use the elector's Postgres store",
				op.What(), s.Table)
		case op.Conn == "pool" && (s.SessionAdvisoryLock() || s.AdvisoryUnlock()):
			recv := "(" + op.API.Pkg[strings.LastIndexByte(op.API.Pkg, '/')+1:] + "." + op.API.Recv + ")"
			xact := ", or use pg_advisory_xact_lock inside a transaction"
			if s.MySQLLock() {
				xact = "" // MySQL named locks have no transaction-scoped form
			}
			if s.AdvisoryUnlock() {
				p.Reportf(op.Call, nil,
					"%s runs the session-level %s through a connection pool %s: the lock belongs to the pooled connection that took it, "+
						"and this unlock may run on another connection, release nothing, and leave the lock held by an idle connection "+
						"(so no replica gets it again); take the lock, do the work and unlock on one pinned connection (db.Conn(ctx) or pool.Acquire)%s",
					op.What(), s.Advisory, recv, xact)
				continue
			}
			p.Reportf(op.Call, nil,
				"%s takes the session-level %s through a connection pool %s: the lock belongs to whichever pooled connection ran it, "+
					"which goes back to the pool; the unlock may run on another connection and release nothing, and other goroutines "+
					"reusing that connection re-enter the lock; take the lock, do the work and unlock on one pinned connection "+
					"(db.Conn(ctx) or pool.Acquire)%s",
				op.What(), s.Advisory, recv, xact)
		}
	}
}

var (
	lockNames   = map[string]bool{"Lock": true, "TryLock": true, "Acquire": true, "TryAcquire": true, "Obtain": true, "AcquireLock": true, "LockKey": true}
	unlockNames = map[string]bool{"Unlock": true, "Release": true, "ReleaseLock": true, "UnlockKey": true}
)

// discardedLock reports x.Unlock(key) after x.Lock(key) whose bool result is
// discarded: the release runs whether or not the lock was taken, and it
// names only the key, so it removes whoever holds it.
func discardedLock(p *rule.Pass, fd *ast.FuncDecl, locking map[*types.Func]bool) {
	info := p.TypesInfo
	type lockCall struct {
		call *ast.CallExpr
		recv string
		keys string
	}
	var locks []lockCall
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		var call *ast.CallExpr
		switch s := n.(type) {
		case *ast.ExprStmt:
			call, _ = ast.Unparen(s.X).(*ast.CallExpr)
		case *ast.AssignStmt:
			if len(s.Rhs) == 1 && len(s.Lhs) >= 1 {
				if id, ok := s.Lhs[0].(*ast.Ident); ok && id.Name == "_" {
					call, _ = ast.Unparen(s.Rhs[0]).(*ast.CallExpr)
				}
			}
		}
		if call == nil {
			return true
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || !lockNames[sel.Sel.Name] {
			return true
		}
		fn := lockfacts.Callee(info, call)
		if fn == nil || fn.Pkg() == nil || lockfacts.StdPath(fn.Pkg().Path(), p.Pkg.Path()) {
			return true
		}
		sig := fn.Type().(*types.Signature)
		if sig.Results().Len() == 0 || !isBool(sig.Results().At(0).Type()) {
			return true
		}
		if !distributed(p, fn, locking) {
			return true
		}
		keys := keyArgs(info, call)
		if keys == "" {
			return true
		}
		locks = append(locks, lockCall{call, lockfacts.ExprText(sel.X), keys})
		return true
	})
	if len(locks) == 0 {
		return
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || !unlockNames[sel.Sel.Name] {
			return true
		}
		recv, keys := lockfacts.ExprText(sel.X), keyArgs(info, call)
		for _, l := range locks {
			if l.recv != recv || l.keys != keys || call.Pos() < l.call.Pos() {
				continue
			}
			lockSel := ast.Unparen(l.call.Fun).(*ast.SelectorExpr)
			p.Reportf(call, []analysis.RelatedInformation{rule.Related(l.call, "the lock's result is discarded here")},
				"%s.%s(%s) runs whether or not %s.%s(%s) took the lock: its bool result is discarded (line %d), and the release "+
					"names only the key, so on a replica that lost the race it removes the lock the winner holds and a third replica "+
					"starts the same work; check the result, skip the work and the release when it is false, and release with an owner "+
					"token (compare-and-delete), or use the elector",
				recv, sel.Sel.Name, keys, l.recv, lockSel.Sel.Name, l.keys, lockfacts.Line(p.Fset, l.call.Pos()))
			break
		}
		return true
	})
}

// distributed reports whether a Lock method may take a lock shared across
// replicas: an interface method (the implementation is pluggable, as a
// scheduler's Locker), a method of this package whose body uses a lock API,
// or a method of a package that imports one. A keyed in-process mutex is
// not this rule's business.
func distributed(p *rule.Pass, fn *types.Func, locking map[*types.Func]bool) bool {
	sig := fn.Type().(*types.Signature)
	if sig.Recv() != nil && types.IsInterface(sig.Recv().Type()) {
		return true
	}
	if fn.Pkg() == p.Pkg {
		return locking[fn.Origin()]
	}
	for _, imp := range fn.Pkg().Imports() {
		if p.KB.Knows(imp.Path()) {
			return true
		}
	}
	return false
}

// keyArgs is the text of the call's arguments other than contexts.
func keyArgs(info *types.Info, call *ast.CallExpr) string {
	var parts []string
	for _, a := range call.Args {
		if t := info.TypeOf(a); t != nil && isContext(t) {
			continue
		}
		parts = append(parts, lockfacts.ExprText(a))
	}
	return strings.Join(parts, ", ")
}

func isContext(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

func isBool(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.Bool
}

// leaseBreaks reports an Azure Blob lease released with BreakLease by the
// code that acquired it: in the same function after the acquire (not in
// the acquire's failure branch, where a break takes over a stale lease), or
// in an unlock-like method of a type whose other method acquires the same
// lease client. A break sends no lease ID, so it ends whoever's lease is
// current. A break in code that never acquires (an operator's recovery
// tool) is deliberate and not reported.
func leaseBreaks(p *rule.Pass, pkg *lockfacts.Package, f *lockfacts.Func) {
	for _, op := range f.Ops {
		if op.Kind != lockfacts.Break || op.Recv == nil {
			continue
		}
		handle := lockfacts.ExprText(op.Recv)
		var acq *lockfacts.Op
		where := "this function"
		failure := false
		for _, o := range f.Ops {
			if o.Kind == lockfacts.Lease && o.API.Kind == "lease-acquire" && o.Recv != nil &&
				lockfacts.ExprText(o.Recv) == handle && o.Call.Pos() < op.Call.Pos() {
				if acq == nil {
					acq = o
				}
				if inFailureBranch(p.TypesInfo, f.Decl.Body, o, op) {
					failure = true
				}
			}
		}
		if failure {
			continue
		}
		if acq == nil {
			if !unlockLike(f.Decl.Name.Name) {
				continue
			}
			acq, where = pairedAcquire(pkg, f, op)
			if acq == nil {
				continue
			}
		}
		kind := "blob"
		if strings.HasPrefix(op.API.Recv, "Container") {
			kind = "container"
		}
		args := "(ctx, nil)"
		if op.API.Recv == "BlobURL" || op.API.Recv == "ContainerURL" { // the legacy azure-storage-blob-go
			args = "(ctx, leaseID, azblob.ModifiedAccessConditions{})"
		}
		p.Reportf(op.Call, []analysis.RelatedInformation{rule.Related(acq.Call, "the lease is acquired here")},
			"BreakLease releases the %s lease %s that %s acquired (line %d) by breaking it: a break sends no lease ID, "+
				"so if this replica's lease expired while the work ran and another replica acquired it, this call ends that "+
				"replica's lease and a third replica can start the same work; release with %s.ReleaseLease%s, which "+
				"succeeds only while the lease is still this client's, or run the work under the elector (elector/azblobstore)",
			kind, handle, where, lockfacts.Line(p.Fset, acq.Call.Pos()), handle, args)
	}
}

// unlockLike: a method name that says it gives a lock up, or ends the
// holder's life (Stop, Close, Shutdown).
func unlockLike(name string) bool {
	for _, pre := range []string{"Unlock", "unlock", "Release", "release", "Resign", "resign", "StepDown", "stepDown", "Abdicate", "abdicate",
		"Stop", "stop", "Close", "close", "Shutdown", "shutdown"} {
		if strings.HasPrefix(name, pre) {
			return true
		}
	}
	return false
}

// pairedAcquire finds, in another method of f's receiver type, an acquire
// of the lease client op breaks (the same field of the receiver).
func pairedAcquire(pkg *lockfacts.Package, f *lockfacts.Func, op *lockfacts.Op) (*lockfacts.Op, string) {
	if f.Recv == "" {
		return nil, ""
	}
	field, ok := recvField(f.Decl, op.Recv)
	// or a lease client looked up in the receiver's state
	// (lc := s.leases[name]): any lease the type's other methods acquire
	fromState := !ok && fromRecvState(f.Decl, op.Recv)
	if !ok && !fromState {
		return nil, ""
	}
	for _, g := range pkg.Funcs {
		if g == f || g.Recv != f.Recv {
			continue
		}
		for _, o := range g.Ops {
			if o.Kind != lockfacts.Lease || o.API.Kind != "lease-acquire" || o.Recv == nil {
				continue
			}
			if gf, ok := recvField(g.Decl, o.Recv); fromState || ok && gf == field {
				return o, "(*" + g.Recv + ")." + g.Decl.Name.Name
			}
		}
	}
	return nil, ""
}

// fromRecvState reports whether e is rooted at a local variable of the
// method assigned from an expression over the receiver (lc := s.leases[k],
// h, ok := s.held[k]).
func fromRecvState(fd *ast.FuncDecl, e ast.Expr) bool {
	if fd.Recv == nil || len(fd.Recv.List) == 0 || len(fd.Recv.List[0].Names) == 0 {
		return false
	}
	recv := fd.Recv.List[0].Names[0].Name
	root := ast.Unparen(e)
	for {
		if sel, ok := root.(*ast.SelectorExpr); ok {
			root = ast.Unparen(sel.X)
			continue
		}
		break
	}
	id, ok := root.(*ast.Ident)
	if !ok || id.Name == recv {
		return false
	}
	found := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || found || len(as.Rhs) != 1 {
			return !found
		}
		for _, l := range as.Lhs {
			if lid, ok := l.(*ast.Ident); ok && lid.Name == id.Name {
				ast.Inspect(as.Rhs[0], func(m ast.Node) bool {
					if rid, ok := m.(*ast.Ident); ok && rid.Name == recv {
						found = true
					}
					return !found
				})
			}
		}
		return !found
	})
	return found
}

// recvField returns the selector path of e below the method's receiver
// (".lc" for m.lc), or false when e is not a field of the receiver.
func recvField(fd *ast.FuncDecl, e ast.Expr) (string, bool) {
	if fd.Recv == nil || len(fd.Recv.List) == 0 || len(fd.Recv.List[0].Names) == 0 {
		return "", false
	}
	name := fd.Recv.List[0].Names[0].Name
	text := lockfacts.ExprText(e)
	if rest, ok := strings.CutPrefix(text, name+"."); ok && name != "_" {
		return rest, true
	}
	return "", false
}

// inFailureBranch reports whether brk lies in the branch taken when acq
// failed: the body of an if testing acq's error != nil, or the else of one
// testing == nil.
func inFailureBranch(info *types.Info, body *ast.BlockStmt, acq, brk *lockfacts.Op) bool {
	errVar := acquireErr(info, body, acq.Call)
	if errVar == nil {
		return false
	}
	for _, n := range lockfacts.PathTo(body, brk.Call) {
		ifs, ok := n.(*ast.IfStmt)
		if !ok {
			continue
		}
		be, ok := ast.Unparen(ifs.Cond).(*ast.BinaryExpr)
		if !ok || (be.Op != token.NEQ && be.Op != token.EQL) {
			continue
		}
		isErr := func(e ast.Expr) bool {
			id, ok := ast.Unparen(e).(*ast.Ident)
			return ok && info.ObjectOf(id) == errVar
		}
		isNil := func(e ast.Expr) bool {
			id, ok := ast.Unparen(e).(*ast.Ident)
			return ok && info.Uses[id] == types.Universe.Lookup("nil")
		}
		if !(isErr(be.X) && isNil(be.Y) || isErr(be.Y) && isNil(be.X)) {
			continue
		}
		if be.Op == token.NEQ && lockfacts.Inside(brk.Call, ifs.Body) {
			return true
		}
		if be.Op == token.EQL && ifs.Else != nil && lockfacts.Inside(brk.Call, ifs.Else) {
			return true
		}
	}
	// `if err == nil { ...; return }` before the break in an enclosing
	// block: the break runs only when the acquire failed
	path := lockfacts.PathTo(body, brk.Call)
	for i, n := range path {
		list, ok := lockfacts.StmtList(n)
		if !ok {
			continue
		}
		for _, st := range list {
			if i+1 < len(path) && st == path[i+1] {
				break
			}
			ifs, ok := st.(*ast.IfStmt)
			if !ok || ifs.Pos() < acq.Call.End() || len(ifs.Body.List) == 0 {
				continue
			}
			be, ok := ast.Unparen(ifs.Cond).(*ast.BinaryExpr)
			if !ok || be.Op != token.EQL {
				continue
			}
			if id, ok := ast.Unparen(be.X).(*ast.Ident); !ok || info.ObjectOf(id) != errVar {
				continue
			}
			switch ifs.Body.List[len(ifs.Body.List)-1].(type) {
			case *ast.ReturnStmt, *ast.BranchStmt:
				return true
			}
		}
	}
	return false
}

// acquireErr returns the error variable call's result is assigned to.
func acquireErr(info *types.Info, body *ast.BlockStmt, call *ast.CallExpr) types.Object {
	var out types.Object
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || out != nil || len(as.Rhs) != 1 || ast.Unparen(as.Rhs[0]) != call {
			return out == nil
		}
		for _, l := range as.Lhs {
			if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
				if obj := info.ObjectOf(id); obj != nil && types.Identical(obj.Type(), types.Universe.Lookup("error").Type()) {
					out = obj
				}
			}
		}
		return false
	})
	return out
}
