package jobs

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/cfg"
	"golang.org/x/tools/go/types/typeutil"
)

// An edge of the loop body's control flow is classed by the branch it
// enters: a failure branch (the attempt failed or is not done yet), a
// try-again branch (it abandons the rest of the attempt with continue), or
// a plain one.
type edgeClass int

const (
	plainEdge edgeClass = iota
	failureEdge
	tryAgainEdge
)

// retryShaped reads the loop's control flow: it retries one attempt, and is
// not periodic work, when every way round again goes through a failure or
// try-again branch: the path that completes the attempt then leaves the
// loop (return, break) or waits for shutdown. A sleep or
// timer wait in such a loop only paces the retries: it is a backoff.
//
// Periodic loops stay periodic: `for { work(); if err != nil { log };
// sleep }` and `for range ticker.C { work() }` go round on a plain path, and
// so does a loop that leaves only on shutdown or on error: when the work
// succeeded.
func (f *finder) retryShaped(loop ast.Node) bool {
	body := f.enclosingBody(loop)
	if body == nil {
		return false
	}
	g := cfg.New(body, f.mayReturn)
	var entry, head, done, cond, post *cfg.Block
	for _, b := range g.Blocks {
		if b.Stmt != loop {
			continue
		}
		switch b.Kind {
		case cfg.KindForBody, cfg.KindRangeBody:
			entry = b
		case cfg.KindForDone, cfg.KindRangeDone:
			done = b
		case cfg.KindForLoop, cfg.KindRangeLoop:
			cond = b
		case cfg.KindForPost:
			post = b
		}
	}
	// continue goes to the post statement, else to the condition, else to
	// the body itself (for { ... }).
	switch {
	case post != nil:
		head = post
	case cond != nil:
		head = cond
	default:
		head = entry
	}
	if entry == nil || head == nil {
		return false
	}
	r := retryReader{f: f, g: g, loop: loop, innerLoop: innermostLoops(loop), tagless: map[*ast.CaseClause]bool{}}
	ast.Inspect(loop, func(n ast.Node) bool {
		if sw, ok := n.(*ast.SwitchStmt); ok && sw.Tag == nil {
			for _, c := range sw.Body.List {
				r.tagless[c.(*ast.CaseClause)] = true
			}
		}
		return true
	})
	// Every way round again takes a failure or try-again branch: the path
	// that completes the attempt does not go round, so it leaves the loop
	// (or blocks until shutdown), and the loop is not periodic.
	return !r.reaches(entry, head, done, func(c edgeClass) bool { return c == plainEdge })
}

type retryReader struct {
	f    *finder
	g    *cfg.CFG
	loop ast.Node
	// innerLoop maps each statement in the loop body to its innermost
	// enclosing loop, to tell which loop a continue goes round.
	innerLoop map[ast.Node]ast.Node
	// tagless: the case clauses of switches without a tag.
	tagless map[*ast.CaseClause]bool
}

// reaches: head is reached from entry taking only edges allowed, without
// leaving the loop (outside it, control may come back in through head).
func (r *retryReader) reaches(entry, head, done *cfg.Block, allowed func(edgeClass) bool) bool {
	seen := map[*cfg.Block]bool{entry: true}
	work := []*cfg.Block{entry}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		for _, s := range b.Succs {
			if !allowed(r.class(b, s)) {
				continue
			}
			if s == head {
				return true
			}
			if s == done || seen[s] || !within(s, r.loop) {
				continue // left the loop (a break, a labeled break or continue, a goto)
			}
			seen[s] = true
			work = append(work, s)
		}
	}
	return false
}

// within: the block's statement lies in the loop (the function's own
// blocks have none).
func within(b *cfg.Block, loop ast.Node) bool {
	return b.Stmt != nil && loop.Pos() <= b.Stmt.Pos() && b.Stmt.End() <= loop.End()
}

// class reads the branch the edge from b to s enters.
func (r *retryReader) class(b, s *cfg.Block) edgeClass {
	switch s.Kind {
	case cfg.KindIfThen:
		is := s.Stmt.(*ast.IfStmt)
		return r.branchClass(is.Cond, is.Body.List, is)
	case cfg.KindSwitchCaseBody:
		if len(b.Succs) != 2 || b.Succs[0] != s {
			return plainEdge // a fallthrough, or the jump to default
		}
		cc := s.Stmt.(*ast.CaseClause)
		var cond ast.Expr // a case of a tagless switch is a condition
		if len(cc.List) == 1 && r.tagless[cc] {
			cond = cc.List[0]
		}
		return r.branchClass(cond, cc.Body, cc)
	}
	// The false side of an if (the else block, or the block after the if)
	// of a success test.
	if len(b.Succs) == 2 && b.Succs[1] == s && b.Succs[0].Kind == cfg.KindIfThen {
		if successCondition(b.Succs[0].Stmt.(*ast.IfStmt).Cond) {
			return failureEdge
		}
		// Not `if ok { return }` in general: a ticker poll that returns once
		// something turns up (a claimed task) works on every tick. Sleep
		// loops keep that reading in retryLoop.
	}
	return plainEdge
}

// branchClass: a branch on a failure (err != nil) is a failure branch; one
// that ends in a continue of this loop, on a condition that is neither a
// success nor a shutdown, tries again.
func (r *retryReader) branchClass(cond ast.Expr, body []ast.Stmt, branch ast.Node) edgeClass {
	if cond != nil {
		switch {
		case failureCondition(cond):
			return failureEdge
		case successCondition(cond), stopCondition(cond):
			return plainEdge // work done goes round: periodic; a pause while stopping
		}
	}
	if r.continues(body, branch) {
		return tryAgainEdge
	}
	return plainEdge
}

// continues: the branch ends in a continue of this loop.
func (r *retryReader) continues(list []ast.Stmt, branch ast.Node) bool {
	if len(list) == 0 {
		return false
	}
	bs, ok := list[len(list)-1].(*ast.BranchStmt)
	if !ok || bs.Tok != token.CONTINUE {
		return false
	}
	if bs.Label != nil {
		ls, ok := r.labeled(bs.Label)
		return ok && ls == r.loop
	}
	return r.innerLoop[branch] == r.loop
}

// labeled finds the statement a label names.
func (r *retryReader) labeled(label *ast.Ident) (ast.Stmt, bool) {
	obj := r.f.pass.TypesInfo.ObjectOf(label)
	var found ast.Stmt
	for n := range r.innerLoop {
		if ls, ok := n.(*ast.LabeledStmt); ok && r.f.pass.TypesInfo.Defs[ls.Label] == obj {
			found = ls.Stmt
		}
	}
	if found == nil {
		// the loop's own label sits outside its body
		for _, b := range r.g.Blocks {
			if b.Kind == cfg.KindLabel {
				if ls, ok := b.Stmt.(*ast.LabeledStmt); ok && r.f.pass.TypesInfo.Defs[ls.Label] == obj {
					found = ls.Stmt
				}
			}
		}
	}
	return found, found != nil
}

// successCondition: err == nil.
func successCondition(cond ast.Expr) bool {
	be, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || be.Op != token.EQL {
		return false
	}
	id, ok := ast.Unparen(be.Y).(*ast.Ident)
	return ok && id.Name == "nil" && containsErr(be.X)
}

func containsErr(e ast.Expr) bool {
	return strings.Contains(strings.ToLower(exprText(e)), "err")
}

// innermostLoops maps every node in the loop to its innermost enclosing
// loop (the loop itself at the top).
func innermostLoops(loop ast.Node) map[ast.Node]ast.Node {
	m := map[ast.Node]ast.Node{}
	var stack []ast.Node
	ast.Inspect(loop, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		for i := len(stack) - 1; i >= 0 && m[n] == nil; i-- {
			switch stack[i].(type) {
			case *ast.ForStmt, *ast.RangeStmt:
				m[n] = stack[i]
			}
		}
		stack = append(stack, n)
		return true
	})
	return m
}

// enclosingBody: the body of the function or function literal the loop is in.
func (f *finder) enclosingBody(loop ast.Node) *ast.BlockStmt {
	for _, file := range f.pass.Files {
		if file.FileStart > loop.Pos() || loop.End() > file.FileEnd {
			continue
		}
		path, _ := astutil.PathEnclosingInterval(file, loop.Pos(), loop.End())
		for _, n := range path {
			switch n := n.(type) {
			case *ast.FuncLit:
				return n.Body
			case *ast.FuncDecl:
				return n.Body
			}
		}
	}
	return nil
}

// mayReturn: panic, os.Exit and log.Fatal end the function.
func (f *finder) mayReturn(call *ast.CallExpr) bool {
	switch fn := typeutil.Callee(f.pass.TypesInfo, call).(type) {
	case *types.Builtin:
		return fn.Name() != "panic"
	case *types.Func:
		if fn.Pkg() == nil {
			return true
		}
		switch fn.Pkg().Path() + "." + fn.Name() {
		case "os.Exit", "log.Fatal", "log.Fatalf", "log.Fatalln", "log.Panic", "log.Panicf", "log.Panicln":
			return false
		}
	}
	return true
}
