package unfencedwrite

import (
	"go/ast"
	"go/token"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
	"github.com/gatesift/gatesift-vet/analyzers/rule"
	"github.com/gatesift/gatesift-vet/signals"
)

// Analyzer reports LE3003.
var Analyzer = rule.New(rule.Spec{ID: "LE3003", Run: run})

var fenceWords = []string{"token", "fenc", "epoch", "generation", "version", "term", "lease", "owner", "holder"}

func run(p *rule.Pass) error {
	if !p.ImportsKnown() {
		return nil
	}
	info := p.TypesInfo
	pkg := lockfacts.Scan(p.Pkg, info, p.KB, p.Files())
	for _, f := range pkg.Funcs {
		deferred := lockfacts.Deferred(f.Decl.Body)
		for _, op := range f.Ops {
			handle, ok := acquired(pkg, f, op)
			if !ok {
				continue
			}
			region := lockfacts.Region(f.Decl.Body, op.Call)
			if len(region) == 0 {
				continue
			}
			end := region[len(region)-1].End()
			for _, o := range f.Ops {
				if o.Call.Pos() <= op.Call.Pos() || deferred[o.Call] || o.Call.Pos() >= end {
					continue
				}
				if (o.Kind == lockfacts.Unlock && handle != "" && lockfacts.ExprText(o.Recv) == handle) ||
					((o.Kind == lockfacts.Delete || o.Kind == lockfacts.Script) && op.Key != nil && o.KeyID() == op.KeyID()) {
					end = o.Call.Pos()
					break
				}
			}
			reported := 0
			for _, st := range region {
				if st.Pos() >= end || reported >= 3 {
					break
				}
				ast.Inspect(st, func(n ast.Node) bool {
					if n == nil || n.Pos() >= end || reported >= 3 {
						return false
					}
					switch x := n.(type) {
					case *ast.FuncLit, *ast.GoStmt, *ast.DeferStmt:
						return false
					case *ast.CallExpr:
						if w := unfenced(p, x, op, handle); w != "" {
							p.Reportf(x, []analysis.RelatedInformation{rule.Related(op.Call, "the lock is taken here")},
								"%s writes to shared state (%s) under the lock %s (line %d) without a fencing token or ownership condition: "+
									"if this holder pauses past the lock's TTL, another replica takes the lock and both write, and the store "+
									"cannot tell the stale write apart; pass a fencing token the store checks (WHERE fencing_token <= $tok, "+
									"a conditional write), or run the work under the elector and write with lease.Token()",
								lockfacts.ExprText(x.Fun), w, op.KeyLabel(), lockfacts.Line(p.Fset, op.Call.Pos()))
							reported++
						}
					}
					return true
				})
			}
		}
	}
	return nil
}

// acquired reports whether op takes a lock with a TTL, and its handle.
func acquired(pkg *lockfacts.Package, f *lockfacts.Func, op *lockfacts.Op) (string, bool) {
	switch {
	case op.Kind == lockfacts.Lock && op.Recv != nil:
		return lockfacts.ExprText(op.Recv), true
	case op.Kind == lockfacts.Acquire && op.API.Name == "Obtain":
		h := lockfacts.AssignedTo(f.Decl.Body, op.Call)
		if h == "_" {
			h = ""
		}
		return h, true
	case op.Kind == lockfacts.Acquire && op.Key != nil && !op.NoTTL && op.API.Kind != "sql" && pkg.Lockish(f, op):
		return "", true
	}
	return "", false
}

// unfenced returns the effect kind of call when it is an unfenced write.
func unfenced(p *rule.Pass, call *ast.CallExpr, lock *lockfacts.Op, handle string) string {
	fn := lockfacts.Callee(p.TypesInfo, call)
	if fn == nil {
		return ""
	}
	eff := p.KB.Match(signals.Effects, fn)
	if eff == nil {
		return ""
	}
	if l := p.KB.Match(signals.Locks, fn); l != nil && !strings.HasPrefix(l.Kind, "doc-") {
		// lock operations and raw commands are the lock's own business,
		// except SQL, whose text says what it writes, and document writes
		// (the locks section knows them only to read lock documents)
		if op := lockfacts.Classify(p.TypesInfo, p.KB, call); op == nil || op.Kind != lockfacts.SQL {
			return ""
		}
	}
	kind := eff.Kind
	switch kind {
	case "sqlread", "cmd", "http", "", "telemetry", "query-body", "own-certificate", "mint":
		return ""
	case "sql":
		i, ok := eff.Arg("query")
		if !ok || i >= len(call.Args) {
			return ""
		}
		text, ok := lockfacts.StringConst(p.TypesInfo, call.Args[i])
		if !ok {
			return ""
		}
		s := lockfacts.ParseSQL(text)
		if s.Verb != "insert" && s.Verb != "update" && s.Verb != "delete" {
			return ""
		}
		if s.OwnerPred || s.LockTable || fenced(text) {
			return ""
		}
		kind = "SQL " + strings.ToUpper(s.Verb) + " on " + s.Table
	}
	// the lock's own key, token or handle among the arguments: fenced or a
	// lock operation
	for _, a := range call.Args {
		t := lockfacts.ExprText(a)
		if fenced(t) || (handle != "" && strings.Contains(t, handle+".")) ||
			(lock.Key != nil && t == lockfacts.ExprText(lock.Key)) {
			return ""
		}
		if v, ok := lock.API.Arg("value"); ok && v < len(lock.Call.Args) && t == lockfacts.ExprText(lock.Call.Args[v]) {
			return ""
		}
	}
	return kind
}

func fenced(text string) bool {
	t := strings.ToLower(text)
	for _, w := range fenceWords {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

var _ = token.NoPos
