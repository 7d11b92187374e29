package lockfacts

import (
	"go/ast"
	"go/types"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/gatesift/gatesift-vet/signals"
)

// ProjectLock is a lock a project writes itself over a store: a function
// named like an acquire (Lock, TryLock, Acquire, AcquireLock, Obtain) that
// inserts a row, and a function named like a release (Unlock, Release,
// ReleaseLock) of the same receiver type (or both package-level) that
// deletes rows of the same table or model. The names say the rows are a
// lock; the insert and the delete say how it is taken and given back.
type ProjectLock struct {
	Recv             string // receiver type name, "" for functions
	Acquire, Release *ast.FuncDecl
	Insert, Delete   *RowOp
	// Expiry: some statement of the package on the same rows (the insert,
	// a renewal, a stale-row cleanup) or the model mentions an expiry.
	Expiry bool
	// OwnerRead: the release reads an owner or token column of the rows
	// first (SELECT owner FROM locks ...): a check, if not an atomic one.
	OwnerRead bool
	// HeldFlag: the release is conditional on an in-process flag of the
	// receiver that the acquire sets (see heldFlag).
	HeldFlag bool
}

// ProjectLockOptions widens what ProjectLocksWith reads.
type ProjectLockOptions struct {
	// Fold reads statements through value flow (see Folder): statements
	// assigned to a variable twice, table names through a quoting helper.
	Fold Folder
	// Documents adds locks kept as documents of a document store
	// (doclock.go).
	Documents bool
	// Carried holds the rows functions of other packages write (RowFact),
	// by function: a call of one in an acquire or release writes them.
	Carried map[*types.Func]*RowFact
}

// ProjectLocksWith finds the project's own locks among the package's
// functions, reading what opts allows. The rows an acquire or release
// writes are those of its body and of the package functions it calls
// directly.
func ProjectLocksWith(info *types.Info, kb *signals.Knowledge, files []*ast.File, opts ProjectLockOptions) []*ProjectLock {
	pairs := lockPairs(files)
	if len(pairs) == 0 {
		// no acquire with a release of the same type: nothing to read, and
		// no value flow built for the package's statements
		return nil
	}
	fold := opts.Fold
	var docs *docPackage
	if opts.Documents {
		docs = scanDocs(info, kb, files)
	}
	decls := map[*types.Func]*ast.FuncDecl{}
	for _, fd := range Funcs(files) {
		if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
			decls[fn] = fd
		}
	}
	rows := map[*ast.FuncDecl][]*RowOp{}
	rowsOf := func(fd *ast.FuncDecl) []*RowOp {
		if r, ok := rows[fd]; ok {
			return r
		}
		r := RowOps(info, kb, fold, docs != nil, fd.Body, fd.Body)
		r = append(r, carriedRows(info, opts.Carried, fd.Body)...)
		for _, op := range r {
			if op.Doc {
				docs.judge(op)
				op.Expiry = op.Expiry || docs.ending
			}
		}
		rows[fd] = r
		return r
	}
	// with the rows of the package functions it calls, two calls deep
	deep := func(fd *ast.FuncDecl) []*RowOp {
		var out []*RowOp
		for _, g := range Reached(info, decls, fd, 2) {
			out = append(out, rowsOf(g)...)
		}
		return out
	}
	// tables and models some statement gives an expiry; a table named by
	// an expression, per receiver type
	expiring := map[string]bool{}
	for _, fd := range Funcs(files) {
		recv := RecvTypeName(fd)
		for _, op := range rowsOf(fd) {
			if op.Expiry {
				expiring[tableKey(recv, op.Table, op.Named)] = true
			}
		}
		for _, t := range expiringStatements(info, fold, fd) {
			expiring[tableKey(recv, t.table, t.named)] = true
		}
	}
	var out []*ProjectLock
	for _, g := range pairs {
		recv := g.recv
		for _, a := range g.acquires {
			for _, ins := range deep(a) {
				if ins.Verb != "insert" || !ins.Unique || ins.Upsert {
					continue
				}
				for _, r := range g.releases {
					for _, del := range deep(r) {
						if del.Verb != "delete" || del.Table != ins.Table || del.Doc && !del.Keyed {
							continue
						}
						out = append(out, &ProjectLock{Recv: recv, Acquire: a, Release: r, Insert: ins, Delete: del,
							OwnerRead: readsOwner(info, fold, Reached(info, decls, r, 2)),
							HeldFlag:  heldFlag(info, a, r) || guardedHelper(info, decls, g, r),
							Expiry:    expiring[tableKey(recv, ins.Table, ins.Named)] || expiring[tableKey(recv, anyTable, true)]})
					}
				}
			}
		}
	}
	return out
}

// carriedRows returns the rows written by the calls in body of functions
// of other packages that carry a RowFact, each at its call.
func carriedRows(info *types.Info, carried map[*types.Func]*RowFact, body *ast.BlockStmt) []*RowOp {
	if len(carried) == 0 {
		return nil
	}
	var out []*RowOp
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if fn := Callee(info, call); fn != nil {
				if f := carried[fn.Origin()]; f != nil {
					out = append(out, f.RowOpsAt(call, fn)...)
				}
			}
		}
		return true
	})
	return out
}

// guardedHelper: r is an unexported release-named helper (releaseTableLock)
// that another release of its type, run only under the held flag its
// acquire sets (heldFlag), calls: the flag guards the helper too. An
// exported helper may be called by anyone, so it is judged alone.
func guardedHelper(info *types.Info, decls map[*types.Func]*ast.FuncDecl, g *lockPair, r *ast.FuncDecl) bool {
	if ast.IsExported(r.Name.Name) {
		return false
	}
	for _, outer := range g.releases {
		if outer == r {
			continue
		}
		calls := false
		for _, fd := range Reached(info, decls, outer, 2) {
			if fd == r {
				calls = true
			}
		}
		if !calls {
			continue
		}
		for _, a := range g.acquires {
			if heldFlag(info, a, outer) {
				return true
			}
		}
	}
	return false
}

// lockPair is the acquire-named and release-named functions of one
// receiver type (recv "" for package-level functions).
type lockPair struct {
	recv               string
	acquires, releases []*ast.FuncDecl
}

// lockPairs groups the functions of files by receiver type, sorted by the
// type's name, keeping the types that have both an acquire-named and a
// release-named function.
func lockPairs(files []*ast.File) []*lockPair {
	groups := map[string]*lockPair{}
	for _, fd := range Funcs(files) {
		recv := RecvTypeName(fd)
		g := groups[recv]
		if g == nil {
			g = &lockPair{recv: recv}
			groups[recv] = g
		}
		switch {
		case acquireName(fd.Name.Name):
			g.acquires = append(g.acquires, fd)
		case releaseName(fd.Name.Name):
			g.releases = append(g.releases, fd)
		}
	}
	var out []*lockPair
	for _, g := range groups {
		if len(g.acquires) > 0 && len(g.releases) > 0 {
			out = append(out, g)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].recv < out[j].recv })
	return out
}

const anyTable = "*"

func tableKey(recv, table string, named bool) string {
	if named {
		return recv + "\x00" + table
	}
	return table
}

type updatedTable struct {
	table string
	named bool
}

// expiringStatements returns the tables that a statement in fd mentions
// together with an expiry or time column: a renewal (UPDATE locks SET
// expires_at = ...), a stale-row cleanup or takeover (DELETE ... WHERE
// created_at < ...), the table's own definition (CREATE TABLE locks (...,
// locked_at timestamptz)). Any of them may give the lock an end, so the
// lock is not judged to have none. Tables are named as RowOp tables.
func expiringStatements(info *types.Info, fold Folder, fd *ast.FuncDecl) []updatedTable {
	var out []updatedTable
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		for i := range call.Args {
			text, hole, _, ok := foldArg(info, fold, fd.Body, call, i)
			if !ok {
				continue
			}
			q := strings.ToLower(sqlSpace.ReplaceAllString(text, " "))
			q = sqlQuoted.ReplaceAllString(q, "$1$2")
			expiry := false
			for _, w := range sqlWord.FindAllString(q, -1) {
				if w != holeName && !sqlKeyword[w] && expiryWord(w) {
					expiry = true
				}
			}
			if !expiry {
				continue
			}
			for _, m := range sqlTableRef.FindAllStringSubmatch(q, -1) {
				switch t := m[1]; {
				case t == holeName:
					out = append(out, updatedTable{"table " + hole, true})
				case hole == "":
					out = append(out, updatedTable{"table " + t, false})
				default:
					// the expression is not the table: any table of the
					// receiver type may be the one meant
					out = append(out, updatedTable{anyTable, true})
				}
			}
		}
		return true
	})
	return out
}

// readsOwner: a SELECT in fds (folded as FoldSQL folds) reads an owner or
// token column.
func readsOwner(info *types.Info, fold Folder, fds []*ast.FuncDecl) bool {
	found := false
	for _, fd := range fds {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || found {
				return !found
			}
			for i := range call.Args {
				text, _, _, ok := foldArg(info, fold, fd.Body, call, i)
				if !ok || ParseSQL(text).Verb != "select" {
					continue
				}
				for _, w := range sqlWord.FindAllString(strings.ToLower(text), -1) {
					if ownerColumn(w) || strings.Contains(w, "token") {
						found = true
					}
				}
			}
			return !found
		})
	}
	return found
}

// sqlTableRef finds the tables a statement names.
var sqlTableRef = regexp.MustCompile(`\b(?:from|into|update|join|table(?: if not exists)?)\s+([a-z_][a-z0-9_.]*)`)

// acquireName: Lock, TryLock, Acquire, TryAcquire, AcquireLock, Obtain,
// LockJob, lockContext (not Locked, Lockout, LockStatus).
func acquireName(name string) bool {
	return verbName(name, "lock", "acquire", "obtain")
}

// releaseName: Unlock, Release, ReleaseLock, UnlockJob.
func releaseName(name string) bool {
	return verbName(name, "unlock", "release")
}

func verbName(name string, verbs ...string) bool {
	for _, pre := range []string{"try", "Try"} {
		if rest, ok := strings.CutPrefix(name, pre); ok && rest != "" && unicode.IsUpper(rune(rest[0])) {
			name = rest
		}
	}
	lower := strings.ToLower(name)
	for _, v := range verbs {
		if !strings.HasPrefix(lower, v) {
			continue
		}
		rest := name[len(v):]
		if rest == "" {
			return true
		}
		switch r := rune(rest[0]); {
		case !unicode.IsUpper(r):
			continue // Locked, Lockout, Released
		}
		switch {
		case strings.HasPrefix(rest, "Status"), strings.HasPrefix(rest, "State"), strings.HasPrefix(rest, "Info"),
			strings.HasPrefix(rest, "Holder"), strings.HasPrefix(rest, "Owner"), strings.HasPrefix(rest, "Count"):
			continue // LockStatus, ReleaseInfo: about the lock, not taking it
		}
		return true
	}
	return false
}

// Reached returns fd and the functions of decls it calls statically, up to
// depth calls deep, in the order first reached.
func Reached(info *types.Info, decls map[*types.Func]*ast.FuncDecl, fd *ast.FuncDecl, depth int) []*ast.FuncDecl {
	out := []*ast.FuncDecl{fd}
	seen := map[*ast.FuncDecl]bool{fd: true}
	for level, start := 0, 0; level < depth; level++ {
		end := len(out)
		for _, g := range out[start:end] {
			ast.Inspect(g.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if h := decls[Callee(info, call)]; h != nil && !seen[h] {
						seen[h] = true
						out = append(out, h)
					}
				}
				return true
			})
		}
		start = end
	}
	return out
}
