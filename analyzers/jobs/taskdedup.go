package jobs

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/gatesift/gatesift-vet/analyzers/effects"
	"github.com/gatesift/gatesift-vet/signals"
)

// Task options of a queue library's periodic registrations (asynq's
// Scheduler.Register and PeriodicTaskManager): an option of kind dedup
// (a constant TaskID, Unique) makes the queue refuse the copies the other
// replicas' schedulers enqueue on the same tick, so the registration is
// coordinated by the queue itself. The options are read by value flow over
// the AST: option calls, slice literals, append, local variables and the
// package's own helpers that return options or tasks. Anything else (a
// parameter, a field, a call into another package) is unknown: the
// enqueue is then an unknown effect, silent by default and shown under the
// strict profile and in the inventory.

// optVerdict is what the options of one task say.
type optVerdict struct {
	dedup   string   // the coordination, "" if none seen
	node    ast.Node // the option call that de-duplicates
	unknown bool     // some option could not be read
}

func (v optVerdict) or(w optVerdict) optVerdict {
	if v.dedup != "" {
		return v
	}
	if w.dedup != "" {
		return w
	}
	return optVerdict{unknown: v.unknown || w.unknown}
}

// maxOptDepth bounds the helpers followed.
const maxOptDepth = 4

// optReader resolves option and task expressions of one library (lib, the
// import path of the registration API).
type optReader struct {
	f     *finder
	lib   string
	decls map[*types.Func]*ast.FuncDecl
	seen  map[types.Object]bool // local variables being resolved (append cycles)
}

func (f *finder) optReader(lib string) *optReader {
	return &optReader{f: f, lib: lib, decls: f.funcDecls(), seen: map[types.Object]bool{}}
}

// variadic reads the variadic option arguments from index i of call.
func (r *optReader) variadic(call *ast.CallExpr, i int, body *ast.BlockStmt, depth int) optVerdict {
	var v optVerdict
	for k := i; k < len(call.Args); k++ {
		if call.Ellipsis.IsValid() && k == len(call.Args)-1 {
			v = v.or(r.options(call.Args[k], body, depth))
		} else {
			v = v.or(r.option(call.Args[k], body, depth))
		}
	}
	return v
}

// options reads a slice of options.
func (r *optReader) options(e ast.Expr, body *ast.BlockStmt, depth int) optVerdict {
	switch e := ast.Unparen(e).(type) {
	case *ast.CompositeLit:
		var v optVerdict
		for _, elt := range e.Elts {
			v = v.or(r.option(elt, body, depth))
		}
		return v
	case *ast.CallExpr:
		if id, ok := ast.Unparen(e.Fun).(*ast.Ident); ok && len(e.Args) > 0 {
			if b, ok := r.f.pass.TypesInfo.Uses[id].(*types.Builtin); ok && b.Name() == "append" {
				v := r.options(e.Args[0], body, depth)
				return v.or(r.variadic(e, 1, body, depth))
			}
		}
		return r.returned(e, depth, r.options)
	case *ast.Ident:
		if e.Name == "nil" {
			return optVerdict{}
		}
		return r.local(e, body, depth, r.options)
	}
	return optVerdict{unknown: true}
}

// option reads one option.
func (r *optReader) option(e ast.Expr, body *ast.BlockStmt, depth int) optVerdict {
	switch e := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		fn, _ := typeutil.Callee(r.f.pass.TypesInfo, e).(*types.Func)
		if fn == nil {
			return optVerdict{unknown: true}
		}
		if a := r.f.kb.Match(signals.Coordinators, fn); a != nil && a.Kind == "dedup" {
			if i, ok := a.Arg("id"); ok {
				if i >= len(e.Args) || r.f.pass.TypesInfo.Types[e.Args[i]].Value == nil {
					return optVerdict{unknown: true} // an ID computed per process may differ per replica
				}
				return optVerdict{dedup: "task de-duplicated by a constant ID (" + shortName(fn) + ")", node: e}
			}
			return optVerdict{dedup: "task de-duplicated while queued (" + shortName(fn) + ")", node: e}
		}
		if fn.Pkg() != nil && fn.Pkg().Path() == r.lib {
			return optVerdict{} // another option of the library: read, no de-duplication
		}
		return r.returned(e, depth, r.option)
	case *ast.Ident:
		return r.local(e, body, depth, r.option)
	}
	return optVerdict{unknown: true}
}

// task reads the default options of a task value.
func (r *optReader) task(e ast.Expr, body *ast.BlockStmt, depth int) optVerdict {
	switch e := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		fn, _ := typeutil.Callee(r.f.pass.TypesInfo, e).(*types.Func)
		if fn == nil {
			return optVerdict{unknown: true}
		}
		if a := r.f.kb.Match(signals.Schedulers, fn); a != nil && a.Kind == "taskopts" {
			if i, ok := a.Arg("opts"); ok {
				return r.variadic(e, i, body, depth)
			}
		}
		return r.returned(e, depth, r.task)
	case *ast.Ident:
		return r.local(e, body, depth, r.task)
	}
	return optVerdict{unknown: true}
}

type reader func(e ast.Expr, body *ast.BlockStmt, depth int) optVerdict

// returned follows a call of the package's own function to what its
// return statements return (single-result functions).
func (r *optReader) returned(call *ast.CallExpr, depth int, read reader) optVerdict {
	fn, _ := typeutil.Callee(r.f.pass.TypesInfo, call).(*types.Func)
	fd := r.decls[fn]
	if fn == nil || fd == nil || fd.Body == nil || depth >= maxOptDepth ||
		fn.Type().(*types.Signature).Results().Len() != 1 {
		return optVerdict{unknown: true}
	}
	v, any := optVerdict{}, false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			any = true
			if len(n.Results) != 1 {
				v.unknown = true // a bare return of a named result
				return false
			}
			v = v.or(read(n.Results[0], fd.Body, depth+1))
		}
		return true
	})
	if !any {
		return optVerdict{unknown: true}
	}
	return v
}

// local follows a variable declared in body to every value assigned to it
// there. A parameter, a field, a package variable, a variable whose address
// is taken or that a range statement assigns is unknown.
func (r *optReader) local(id *ast.Ident, body *ast.BlockStmt, depth int, read reader) optVerdict {
	v, ok := r.f.pass.TypesInfo.Uses[id].(*types.Var)
	if !ok || body == nil || v.IsField() || v.Pos() < body.Lbrace || v.Pos() > body.Rbrace {
		return optVerdict{unknown: true}
	}
	if r.seen[v] {
		return optVerdict{} // x = append(x, ...): the other assignments say what x holds
	}
	r.seen[v] = true
	defer delete(r.seen, v)
	is := func(e ast.Expr) bool {
		x, ok := ast.Unparen(e).(*ast.Ident)
		return ok && r.f.pass.TypesInfo.ObjectOf(x) == v
	}
	var out optVerdict
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				if !is(lhs) {
					continue
				}
				if len(n.Lhs) != len(n.Rhs) || n.Tok != token.ASSIGN && n.Tok != token.DEFINE {
					out.unknown = true
					continue
				}
				out = out.or(read(n.Rhs[i], body, depth))
			}
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if is(name) && i < len(n.Values) {
					out = out.or(read(n.Values[i], body, depth))
				} else if is(name) && len(n.Values) > 0 {
					out.unknown = true
				}
			}
		case *ast.RangeStmt:
			if n.Key != nil && is(n.Key) || n.Value != nil && is(n.Value) {
				out.unknown = true
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND && is(n.X) {
				out.unknown = true
			}
		}
		return true
	})
	return out
}

// registerDedup reads a Register call's options: its own and its task's.
func (f *finder) registerDedup(call *ast.CallExpr, a *signals.API, stack []ast.Node) optVerdict {
	var body *ast.BlockStmt
	if fd := enclosingFunc(stack); fd != nil {
		body = fd.Body
	}
	r := f.optReader(a.Pkg)
	v := optVerdict{unknown: true}
	if i, ok := a.Arg("task"); ok && i < len(call.Args) {
		v = r.task(call.Args[i], body, 0)
	}
	if i, ok := a.Arg("opts"); ok {
		v = v.or(r.variadic(call, i, body, 0))
	}
	if v.unknown && f.pass.Pkg.Path() == a.Pkg {
		// The library's own registration of its callers' tasks (asynq's
		// PeriodicTaskManager.add passing c.Opts through): what it adds is
		// its default, and it adds no de-duplication; a caller's options
		// are the caller's remedy, not the library's coordination.
		v.unknown = false
	}
	return v
}

// periodicConfig is one config literal a provider may return.
type periodicConfig struct {
	lit     *ast.CompositeLit
	verdict optVerdict
}

// periodicConfigs reads the package's config literals of the library
// (asynq.PeriodicTaskConfig{Cronspec, Task, Opts}): the configs a manager's
// provider returns are built where the provider lives. A config's Task and
// Opts are read like Register's.
func (f *finder) periodicConfigs(lib string) []periodicConfig {
	r := f.optReader(lib)
	var out []periodicConfig
	for _, file := range f.pass.Files { // in order: the first plain config is the one named
		if !f.files[file] {
			continue
		}
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				lit, ok := n.(*ast.CompositeLit)
				if !ok || !f.configLiteral(lit, lib) {
					return true
				}
				var task, opts ast.Expr
				for _, elt := range lit.Elts {
					kv, ok := elt.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					if k, ok := kv.Key.(*ast.Ident); ok {
						switch k.Name {
						case "Task":
							task = kv.Value
						case "Opts":
							opts = kv.Value
						}
					}
				}
				v := optVerdict{unknown: true}
				if task != nil {
					v = r.task(task, fd.Body, 0)
				}
				if opts != nil {
					v = v.or(r.options(opts, fd.Body, 0))
				}
				out = append(out, periodicConfig{lit: lit, verdict: v})
				return true
			})
		}
	}
	return out
}

// configLiteral: a keyed literal of a struct type of lib with Task and
// Opts fields (asynq.PeriodicTaskConfig).
func (f *finder) configLiteral(lit *ast.CompositeLit, lib string) bool {
	t := f.pass.TypesInfo.TypeOf(lit)
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != lib {
		return false
	}
	st, ok := named.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	fields := map[string]bool{}
	for i := 0; i < st.NumFields(); i++ {
		fields[st.Field(i).Name()] = true
	}
	return fields["Task"] && fields["Opts"] && fields["Cronspec"]
}

// addConfigsJob: a manager's Run/Start enqueues each of its provider's
// configs. Reported when a config of the package has readable options and
// none de-duplicates; coordinated when every config de-duplicates; an
// unknown effect otherwise (no config here, or options not readable).
func (f *finder) addConfigsJob(call *ast.CallExpr, fn *types.Func, a *signals.API, stack []ast.Node) {
	j := f.newJob(call, shortName(fn), "", stack)
	j.WorkName = "enqueue of its provider's periodic tasks"
	eff := enqueueEffect(fn, f.pass.Fset.Position(call.Pos()))
	configs := f.periodicConfigs(a.Pkg)
	var plain, dedup *periodicConfig
	for i := range configs {
		c := &configs[i]
		switch {
		case c.verdict.dedup != "":
			if dedup == nil {
				dedup = c
			}
		case !c.verdict.unknown && plain == nil:
			plain = c
		}
	}
	switch {
	case plain != nil:
		// the config whose task every replica enqueues
		pos := f.pass.Fset.Position(plain.lit.Pos())
		eff.Resource = "task queue (Redis), config " + baseName(pos.Filename) + ":" + itoa(pos.Line) + " without TaskID or Unique"
	case dedup != nil && len(configs) > 0 && allDedup(configs):
		j.Coordination, j.CoordinationNode = dedup.verdict.dedup, dedup.verdict.node
	default:
		eff.Unknown = true
		eff.Resource = "task queue (Redis), task options not readable (no config literal here, or options from a parameter)"
	}
	j.Effects = append(j.Effects, eff)
	j.EffectCalls = append(j.EffectCalls, call)
	f.finish(j, stack)
}

func allDedup(configs []periodicConfig) bool {
	for _, c := range configs {
		if c.verdict.dedup == "" {
			return false
		}
	}
	return true
}

// applyDedup sets a registration's coordination or marks its enqueue
// unknown from what its options say.
func applyDedup(j *Job, eff *effects.Effect, v optVerdict) {
	switch {
	case v.dedup != "":
		j.Coordination, j.CoordinationNode = v.dedup, v.node
	case v.unknown:
		eff.Unknown = true
		eff.Resource = "task queue (Redis), task options not readable (a parameter, a computed ID)"
	}
}
