package effects

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/types/typeutil"
)

// An HTTP POST whose response a helper reads is a query (answer.go). The
// helper may be in another package than the POST: a bounded read
// (limit.ReadAll(resp.Body, max)) in a small internal package, a decoder
// of a client library. Such a package often imports nothing the knowledge
// base names, so the Reads fact says, for each of its functions that reads
// a parameter (an io.Reader, an *http.Response's body), which one, and
// whether the function uses what it read or only returns it, leaving the
// decision to the caller.

// Reads is a function's fact: the parameters it reads as an answer.
type Reads struct {
	Params []ReadParam
}

// ReadParam is one parameter a function reads.
type ReadParam struct {
	// Arg is the index among the call's arguments as SSA has them: a
	// method's receiver first.
	Arg int
	// Used: the function uses what it read (decodes it, stores it);
	// otherwise it returns the bytes, and the caller reads an answer only
	// when it uses that result.
	Used bool
}

// AFact marks Reads as a fact.
func (*Reads) AFact() {}

func (f *Reads) String() string {
	var b strings.Builder
	b.WriteString("reads")
	for _, p := range f.Params {
		fmt.Fprintf(&b, " arg%d", p.Arg)
		if p.Used {
			b.WriteString(" (used)")
		}
	}
	return b.String()
}

// ReadsAnswers is a package fact: some function of the package has a
// Reads fact, so a package that hands it a parameter of its own may read
// too (readerCandidates).
type ReadsAnswers struct{}

// AFact marks ReadsAnswers as a fact.
func (*ReadsAnswers) AFact() {}

func (*ReadsAnswers) String() string { return "reads answers" }

// readerCandidates lists the functions of the package that may read a
// parameter: one of reader type, whose body calls a known reader (io.ReadAll,
// a JSON or XML decoder) or a function of a package that has some. A
// syntax and types check, so that the SSA form is built only where one is
// found.
func readerCandidates(pass *analysis.Pass) []*types.Func {
	readerPkgs := map[*types.Package]bool{}
	for _, imp := range pass.Pkg.Imports() {
		if pass.ImportPackageFact(imp, new(ReadsAnswers)) {
			readerPkgs[imp] = true
		}
	}
	var out []*types.Func
	for _, f := range pass.Files {
		if strings.HasSuffix(pass.Fset.File(f.Pos()).Name(), "_test.go") {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			fn, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func)
			if !ok || !hasReaderParam(fn.Signature()) {
				continue
			}
			calls := false
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok && !calls {
					if callee, ok := typeutil.Callee(pass.TypesInfo, c).(*types.Func); ok && callee.Pkg() != nil {
						calls = knownReader(callee) || readerPkgs[callee.Pkg()]
					}
				}
				return !calls
			})
			if calls {
				out = append(out, fn)
			}
		}
	}
	return out
}

func knownReader(fn *types.Func) bool {
	switch fn.Pkg().Path() + "." + fn.Name() {
	case "io.ReadAll", "io/ioutil.ReadAll", "encoding/json.NewDecoder", "encoding/xml.NewDecoder":
		return true
	}
	return false
}

func hasReaderParam(sig *types.Signature) bool {
	for i := 0; i < sig.Params().Len(); i++ {
		if readerType(sig.Params().At(i).Type()) {
			return true
		}
	}
	return false
}

// readerType: an *http.Response, or a value with a Read method.
func readerType(t types.Type) bool {
	if isHTTPType(t, "Response") {
		_, isPtr := t.(*types.Pointer)
		return isPtr
	}
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, "Read")
	_, isMethod := obj.(*types.Func)
	return isMethod
}

// exportReads computes and exports the Reads facts of the candidates.
func (r *Result) exportReads(fns []*types.Func) {
	if len(fns) == 0 {
		return
	}
	r.returnsUndecided = true
	defer func() { r.returnsUndecided = false }()
	exported := false
	for _, fn := range fns {
		sfn := r.ssaFunc(fn)
		if sfn == nil {
			continue
		}
		var f Reads
		for i, p := range sfn.Params {
			if !readerType(p.Type()) || len(f.Params) == maxEffects {
				continue
			}
			// Read at all (a return counted as a use), then used here
			// (a return left to the caller).
			r.returnsUndecided = false
			read := r.paramRead(p)
			r.returnsUndecided = true
			if read {
				f.Params = append(f.Params, ReadParam{Arg: i, Used: r.paramRead(p)})
			}
		}
		if len(f.Params) > 0 {
			r.pass.ExportObjectFact(fn, &f)
			exported = true
		}
	}
	if exported {
		r.pass.ExportPackageFact(&ReadsAnswers{})
	}
}

func (r *Result) paramRead(p *ssa.Parameter) bool {
	if isHTTPType(p.Type(), "Response") {
		return r.bodyRead([]ssa.Value{p})
	}
	return r.readsAnswer(p, 0)
}

// importedReader: call hands v to a function of another package whose
// Reads fact says it reads that argument, and uses what it read, or
// returns it to this call, which uses a result other than an error.
func (r *Result) importedReader(call *ssa.Call, v ssa.Value) bool {
	c := &call.Call
	fn := c.StaticCallee()
	if fn == nil || fn.Blocks != nil {
		return false // this package's helpers are read through (paramPassed)
	}
	obj, ok := fn.Object().(*types.Func)
	if !ok || obj.Pkg() == nil || obj.Pkg() == r.pass.Pkg {
		return false
	}
	var f Reads
	if !r.pass.ImportObjectFact(obj.Origin(), &f) {
		return false
	}
	for _, p := range f.Params {
		if p.Arg < len(c.Args) && c.Args[p.Arg] == v && (p.Used || r.resultUsed(call)) {
			return true
		}
	}
	return false
}

// resultUsed: a result of the call other than an error is used as an
// answer.
func (r *Result) resultUsed(call *ssa.Call) bool {
	res := call.Call.Signature().Results()
	if res.Len() == 1 {
		return !isError(res.At(0).Type()) && r.usedAsAnswer(call, 0)
	}
	for j := 0; j < res.Len(); j++ {
		if isError(res.At(j).Type()) {
			continue
		}
		for _, e := range extracts(call, j) {
			if r.usedAsAnswer(e, 0) {
				return true
			}
		}
	}
	return false
}
