package jobs

import (
	"go/ast"
	"go/constant"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/gatesift/gatesift-vet/signals"
)

// Load generators, benchmarks and stress tests are commands a person runs
// against a service, once, from one place; they are not the service, and
// their periodic work is not run by replicas. A job is such a command's
// when the structure says so, not a name alone:
//
//   - its package is a main package whose import path has an element
//     naming the tool (cmd/litefs-bench, unmaintained/stress, loadtest);
//   - or the function owning the job is reached, in this package, only
//     from the action of a command registered under such a name (a
//     kingpin app.Command("loadgen", ...).Action(c.run), a cobra Command
//     with Use "bench" and Run or RunE; the registration APIs are the
//     commands section of the knowledge base): every call of it, followed up through unexported
//     functions called directly, ends in that action. A function also
//     reached from another command, from a value that escapes, from an
//     interface call or from outside the package (exported) is not.
//
// Such jobs are reported only under the strict profile (Job.Singleton).

// nonServiceReason prefixes the inventory's reason.
const nonServiceReason = "non-service command (load generator)"

// loadToolWords name a load, benchmark or stress tool as a whole word of
// a path element or command name.
var loadToolWords = map[string]bool{
	"loadgen": true, "loadgenerator": true, "loadtest": true, "loadtester": true,
	"bench": true, "benchmark": true, "benchmarks": true,
	"stress": true, "stresstest": true, "stresser": true,
}

// loadToolName: a word of s (split at - _ . and spaces) names a load,
// benchmark or stress tool, or two words do ("load test", "load-gen").
func loadToolName(s string) bool {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return r == '-' || r == '_' || r == '.' || r == ' '
	})
	for i, w := range words {
		if loadToolWords[w] {
			return true
		}
		if w == "load" && i+1 < len(words) {
			switch words[i+1] {
			case "test", "tester", "gen", "generator":
				return true
			}
		}
	}
	return false
}

// commandSet is the package's command registrations: the actions and the
// names they are registered under.
type commandSet struct {
	actionFuncs map[*types.Func][]string   // a named function or method registered as an action
	actionLits  map[*ast.FuncLit][]string  // a literal registered as an action
	refs        map[*types.Func][]funcRef  // every use of a package function
	judged      map[*types.Func]loadResult // memo of reachedOnlyFromLoad
}

type funcRef struct {
	caller *types.Func  // the declaration the use sits in, nil at package level
	lit    *ast.FuncLit // the innermost action literal around the use, if any
	called bool         // the use is the callee of a call
}

type loadResult struct {
	name string
	busy bool
}

// nonService returns why job j belongs to a load-generator command, or "".
func (f *finder) nonService(j *Job, stack []ast.Node) string {
	if f.pass.Pkg.Name() == "main" {
		for _, elem := range strings.Split(f.pass.Pkg.Path(), "/") {
			if loadToolName(elem) {
				return nonServiceReason + ": main package " + f.pass.Pkg.Path() + " is a load, benchmark or stress tool, not a service run on replicas"
			}
		}
	}
	cs := f.commandSet()
	if len(cs.actionFuncs) == 0 && len(cs.actionLits) == 0 {
		return ""
	}
	for i := len(stack) - 1; i >= 0; i-- {
		if lit, ok := stack[i].(*ast.FuncLit); ok {
			if names, ok := cs.actionLits[lit]; ok {
				if allLoad(names) {
					return commandReason(names)
				}
				return ""
			}
		}
	}
	if j.Func == nil {
		return ""
	}
	fn, _ := f.pass.TypesInfo.Defs[j.Func.Name].(*types.Func)
	if fn == nil {
		return ""
	}
	if name := f.reachedOnlyFromLoad(cs, fn, 0); name != "" {
		return commandReason([]string{name})
	}
	return ""
}

func commandReason(names []string) string {
	return nonServiceReason + ": reached only from the action of command \"" + names[0] + "\", a load, benchmark or stress tool run against a service, not by its replicas"
}

func allLoad(names []string) bool {
	for _, n := range names {
		if !loadToolName(n) {
			return false
		}
	}
	return len(names) > 0
}

// reachedOnlyFromLoad returns the load command whose action is the only
// way this package reaches fn, or "".
func (f *finder) reachedOnlyFromLoad(cs *commandSet, fn *types.Func, depth int) string {
	if r, ok := cs.judged[fn]; ok {
		return r.name
	}
	cs.judged[fn] = loadResult{busy: true}
	name := f.computeLoadReach(cs, fn, depth)
	cs.judged[fn] = loadResult{name: name}
	return name
}

func (f *finder) computeLoadReach(cs *commandSet, fn *types.Func, depth int) string {
	if names, ok := cs.actionFuncs[fn]; ok {
		// An action: a load command's only (a function registered for
		// several commands must be a load tool's under each name).
		if allLoad(names) && len(cs.refs[fn]) == len(names) {
			return names[0]
		}
		return ""
	}
	if fn.Exported() || depth >= maxReach || f.dispatchedTo(fn) {
		return "" // callable from elsewhere, or too far to see
	}
	name := ""
	for _, r := range cs.refs[fn] {
		switch {
		case r.lit != nil:
			names := cs.actionLits[r.lit]
			if !allLoad(names) {
				return ""
			}
			name = names[0]
		case !r.called || r.caller == nil:
			return "" // a value that escapes, or package-level use
		default:
			if j, ok := cs.judged[r.caller]; ok && j.busy {
				continue // a cycle back to a function being judged
			}
			n := f.reachedOnlyFromLoad(cs, r.caller, depth+1)
			if n == "" {
				return ""
			}
			name = n
		}
	}
	return name
}

// dispatchedTo: some interface call of this package may dispatch to the
// method fn.
func (f *finder) dispatchedTo(fn *types.Func) bool {
	if sig, _ := fn.Type().(*types.Signature); sig == nil || sig.Recv() == nil {
		return false
	}
	for _, obj := range f.pass.TypesInfo.Uses {
		if m, ok := obj.(*types.Func); ok && f.implementedBy(m, fn) {
			return true
		}
	}
	return false
}

// commandSet finds the package's command registrations and the uses of
// its functions, once.
func (f *finder) commandSet() *commandSet {
	if f.commands != nil {
		return f.commands
	}
	cs := &commandSet{
		actionFuncs: map[*types.Func][]string{},
		actionLits:  map[*ast.FuncLit][]string{},
		refs:        map[*types.Func][]funcRef{},
		judged:      map[*types.Func]loadResult{},
	}
	f.commands = cs
	cmdVars := map[types.Object]string{}
	register := func(name string, action ast.Expr) {
		switch a := ast.Unparen(action).(type) {
		case *ast.FuncLit:
			cs.actionLits[a] = append(cs.actionLits[a], name)
		case *ast.Ident, *ast.SelectorExpr:
			if fn := f.funcRef(a); fn != nil && fn.Pkg() == f.pass.Pkg {
				fn = fn.Origin()
				cs.actionFuncs[fn] = append(cs.actionFuncs[fn], name)
			}
		}
	}
	f.insp.Preorder([]ast.Node{(*ast.AssignStmt)(nil), (*ast.CallExpr)(nil), (*ast.CompositeLit)(nil)}, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.AssignStmt:
			// cmd := app.Command("loadgen", ...): cmd.Action(c.run) later.
			if len(n.Lhs) == len(n.Rhs) {
				for i, rhs := range n.Rhs {
					if name := f.registeredCommand(rhs, cmdVars); name != "" {
						if obj := f.objOf(n.Lhs[i]); obj != nil {
							cmdVars[obj] = name
						}
					}
				}
			}
		case *ast.CallExpr:
			// app.Command("loadgen", ...).Action(c.run), cmd.Action(c.burst).
			fn, _ := typeutil.Callee(f.pass.TypesInfo, n).(*types.Func)
			sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr)
			if !ok || fn == nil {
				return
			}
			a := f.kb.Match(signals.Commands, fn)
			if a == nil || a.Kind != "action" {
				return
			}
			if i, ok := a.Arg("fn"); ok && i < len(n.Args) {
				if name := f.registeredCommand(sel.X, cmdVars); name != "" {
					register(name, n.Args[i])
				}
			}
		case *ast.CompositeLit:
			name, actions := f.commandLiteral(n)
			for _, a := range actions {
				register(name, a)
			}
		}
	})
	f.insp.WithStack([]ast.Node{(*ast.Ident)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push {
			return true
		}
		id := n.(*ast.Ident)
		fn, _ := f.pass.TypesInfo.Uses[id].(*types.Func)
		if fn == nil || fn.Pkg() != f.pass.Pkg {
			return true
		}
		fn = fn.Origin()
		r := funcRef{called: isCallee(stack)}
		for i := len(stack) - 1; i >= 0; i-- {
			switch s := stack[i].(type) {
			case *ast.FuncLit:
				if _, ok := cs.actionLits[s]; ok && r.lit == nil {
					r.lit = s
				}
			case *ast.FuncDecl:
				r.caller, _ = f.pass.TypesInfo.Defs[s.Name].(*types.Func)
			}
		}
		cs.refs[fn] = append(cs.refs[fn], r)
		return true
	})
	return cs
}

// registeredCommand returns the names of the commands registered in a
// receiver chain (app.Command("bench", ...).Command("run", ...).PreAction(...),
// the calls of signals/kb/commands.yaml) or held by a variable assigned
// one, joined by spaces; "" if none.
func (f *finder) registeredCommand(e ast.Expr, cmdVars map[types.Object]string) string {
	var names []string
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.CallExpr:
			sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr)
			fn, _ := typeutil.Callee(f.pass.TypesInfo, x).(*types.Func)
			if !ok || fn == nil {
				return strings.Join(names, " ")
			}
			a := f.kb.Match(signals.Commands, fn)
			if a == nil {
				return strings.Join(names, " ")
			}
			switch a.Kind {
			case "command":
				if i, ok := a.Arg("name"); ok && i < len(x.Args) {
					if s := f.constString(x.Args[i]); s != "" {
						names = append(names, s)
					}
				}
			case "action", "chain":
			default:
				return strings.Join(names, " ")
			}
			e = sel.X
		case *ast.Ident:
			if obj := f.pass.TypesInfo.ObjectOf(x); obj != nil && cmdVars[obj] != "" {
				names = append(names, cmdVars[obj])
			}
			return strings.Join(names, " ")
		default:
			return strings.Join(names, " ")
		}
	}
}

// commandLiteral reads a command's composite literal (a cobra.Command: Use,
// Run, RunE; the fields of signals/kb/commands.yaml): the command's name
// and its actions.
func (f *finder) commandLiteral(lit *ast.CompositeLit) (string, []ast.Expr) {
	t := f.pass.TypesInfo.TypeOf(lit)
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*types.Named)
	if !ok || named.Obj().Pkg() == nil || !f.kb.KnowsIn(signals.Commands, named.Obj().Pkg().Path()) {
		return "", nil
	}
	var name string
	var actions []ast.Expr
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		key, ok := kv.Key.(*ast.Ident)
		if !ok {
			continue
		}
		a := f.kb.MatchField(signals.Commands, named, key.Name)
		if a == nil {
			continue
		}
		switch a.Kind {
		case "command-field":
			if fields := strings.Fields(f.constString(kv.Value)); len(fields) > 0 {
				name = fields[0] // cobra's Use: "bench [flags]"
			}
		case "action-field":
			actions = append(actions, kv.Value)
		}
	}
	if name == "" {
		return "", nil
	}
	return name, actions
}

func (f *finder) constString(e ast.Expr) string {
	if tv, ok := f.pass.TypesInfo.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
		return constant.StringVal(tv.Value)
	}
	return ""
}
