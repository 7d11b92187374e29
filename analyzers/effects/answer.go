package effects

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// An HTTP POST is not always a send: an OCSP status request, a version
// check or a search API posts a question and reads the answer. Whether the
// caller reads the answer is a value-flow question, asked here over SSA:
// the response of the request (the result of http.Post and the like, or of
// a Client.Do given the request http.NewRequest built) has its Body decoded
// (json/xml.NewDecoder(...).Decode) or read (io.ReadAll) into bytes that
// flow onward to something other than an error or log message. A request
// whose response is ignored, drained, or only its status code checked
// tells, and stays a send (a webhook, a notification).

// answerRead: the response of call, an HTTP request (isRequest: call builds
// a *http.Request that a Do sends; else call sends it and returns the
// response), has its body read as an answer.
func (r *Result) answerRead(call *ast.CallExpr, isRequest bool) bool {
	fl := r.flow()
	c := fl.common(call)
	if c == nil || fl.values[c] == nil {
		return false
	}
	results := extracts(fl.values[c], 0)
	if !isRequest {
		return r.bodyRead(results)
	}
	// A request rebuilt with WithContext or Clone before Do is the same
	// question: follow the copies too.
	reqs := append([]ssa.Value(nil), results...)
	for i := 0; i < len(reqs); i++ {
		req := reqs[i]
		for _, ref := range referrers(req) {
			do, ok := ref.(*ssa.Call)
			if !ok || !passes(&do.Call, req) {
				continue
			}
			if isRequestCopy(&do.Call) {
				reqs = append(reqs, do)
				continue
			}
			if isDo(&do.Call) && r.bodyRead(extracts(do, 0)) {
				return true
			}
		}
	}
	return false
}

// isRequestCopy: the call is (*http.Request).WithContext or Clone, which
// return a copy of their receiver with another context.
func isRequestCopy(c *ssa.CallCommon) bool {
	fn := c.StaticCallee()
	if fn == nil || fn.Signature.Recv() == nil || (fn.Name() != "WithContext" && fn.Name() != "Clone") {
		return false
	}
	return isHTTPType(fn.Signature.Recv().Type(), "Request")
}

// isDo: the call, given the request, returns an *http.Response (and an
// error): a Client's Do, a RoundTripper's RoundTrip (a transport that
// authenticates the requests it carries), or a wrapper of either. Whatever
// its name, what it returns is the response to that request.
func isDo(c *ssa.CallCommon) bool {
	res := c.Signature().Results()
	return res.Len() == 2 && isHTTPType(res.At(0).Type(), "Response")
}

func isHTTPType(t types.Type, name string) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "net/http" && n.Obj().Name() == name
}

func passes(c *ssa.CallCommon, v ssa.Value) bool {
	for _, a := range c.Args {
		if a == v {
			return true
		}
	}
	return false
}

// bodyRead: one of the responses has its Body decoded, or read into bytes
// used as an answer, here or in a helper the response is handed to
// (decodeToken(resp)): one of this package, or one of another whose Reads
// fact says it reads that parameter.
func (r *Result) bodyRead(responses []ssa.Value) bool { return r.bodyReadAt(responses, 0) }

func (r *Result) bodyReadAt(responses []ssa.Value, depth int) bool {
	if depth > maxDepth {
		return false
	}
	for _, resp := range withCellLoads(withPhis(responses)) {
		for _, ref := range referrers(resp) {
			if c, ok := ref.(*ssa.Call); ok {
				if p := paramPassed(&c.Call, resp); p != nil && r.bodyReadAt([]ssa.Value{p}, depth+1) {
					return true
				}
				if r.importedReader(c, resp) {
					return true
				}
				continue
			}
			fa, ok := ref.(*ssa.FieldAddr)
			if !ok || fieldOf(fa.X.Type(), fa.Field) == nil || fieldOf(fa.X.Type(), fa.Field).Name() != "Body" {
				continue
			}
			for _, load := range referrers(fa) {
				if body, ok := load.(*ssa.UnOp); ok && r.readsAnswer(body, 0) {
					return true
				}
			}
		}
	}
	return false
}

// readsAnswer: the body v is decoded or read by a call whose result is
// used as an answer.
func (r *Result) readsAnswer(v ssa.Value, depth int) bool {
	if depth > maxDepth {
		return false
	}
	for _, ref := range referrers(v) {
		switch x := ref.(type) {
		case *ssa.MakeInterface, *ssa.ChangeInterface, *ssa.ChangeType:
			if r.readsAnswer(x.(ssa.Value), depth+1) {
				return true
			}
		case *ssa.Call:
			fn := x.Call.StaticCallee()
			path := calleePackage(fn)
			if path == "" || !passes(&x.Call, v) {
				continue
			}
			// A helper of this package the body is handed to
			// (readJSON(resp.Body, &tok)) reads it as its parameter.
			if p := paramPassed(&x.Call, v); p != nil && r.readsAnswer(p, depth+1) {
				return true
			}
			// One of another package that says it reads what it is
			// given (limit.ReadAll(resp.Body, n)).
			if r.importedReader(x, v) {
				return true
			}
			switch path + "." + fn.Name() {
			case "io.LimitReader", "bufio.NewReader", "bufio.NewReaderSize":
				// The same bytes, bounded or buffered: read on.
				if r.readsAnswer(x, depth+1) {
					return true
				}
			case "io.ReadAll", "io/ioutil.ReadAll":
				for _, b := range extracts(x, 0) {
					if r.usedAsAnswer(b, 0) {
						return true
					}
				}
			case "encoding/json.NewDecoder", "encoding/xml.NewDecoder":
				return true // a decoder over the body is made to decode the answer
			}
		}
	}
	return false
}

// paramPassed returns the parameter of a statically called function of
// this package (one with a body) that receives v, or nil.
func paramPassed(c *ssa.CallCommon, v ssa.Value) *ssa.Parameter {
	fn := c.StaticCallee()
	if fn == nil || fn.Blocks == nil || len(fn.Params) != len(c.Args) {
		return nil
	}
	for i, a := range c.Args {
		if a == v {
			return fn.Params[i]
		}
	}
	return nil
}

// withPhis adds the φ-nodes the values flow into: a response assigned on
// two paths (resp, err = retry(sender, req) on one, sender.Do(req) on the
// other) is read once, after they join, and what is read there is this
// request's response on the path it came by.
func withPhis(vs []ssa.Value) []ssa.Value {
	out := append([]ssa.Value(nil), vs...)
	seen := make(map[ssa.Value]bool, len(vs))
	for _, v := range vs {
		seen[v] = true
	}
	for i := 0; i < len(out); i++ {
		for _, ref := range referrers(out[i]) {
			if phi, ok := ref.(*ssa.Phi); ok && !seen[phi] {
				seen[phi] = true
				out = append(out, phi)
			}
		}
	}
	return out
}

// withCellLoads adds, for each value stored in a local variable's heap
// cell (a variable a closure captures, as in defer func() {
// resp.Body.Close() }()), the loads of that cell: the same value, read back.
func withCellLoads(vs []ssa.Value) []ssa.Value {
	out := append([]ssa.Value(nil), vs...)
	for _, v := range vs {
		for _, ref := range referrers(v) {
			st, ok := ref.(*ssa.Store)
			if !ok || st.Val != v {
				continue
			}
			cell, ok := st.Addr.(*ssa.Alloc)
			if !ok {
				continue
			}
			for _, cref := range referrers(cell) {
				if load, ok := cref.(*ssa.UnOp); ok && load.Op == token.MUL {
					out = append(out, load)
				}
			}
		}
	}
	return out
}

// usedAsAnswer: the bytes read from a body flow onward (returned, stored,
// decoded, compared) and not only into an error or log message (the body
// of a failed webhook quoted in its error).
func (r *Result) usedAsAnswer(v ssa.Value, depth int) bool {
	if depth > maxDepth {
		return false
	}
	for _, ref := range referrers(v) {
		switch x := ref.(type) {
		case *ssa.DebugRef:
		case *ssa.Convert, *ssa.MakeInterface, *ssa.ChangeInterface, *ssa.ChangeType:
			if r.usedAsAnswer(x.(ssa.Value), depth+1) {
				return true
			}
		case *ssa.Store:
			// A variadic argument: stored into the backing array of the
			// slice a call receives.
			if ia, ok := x.Addr.(*ssa.IndexAddr); ok && x.Val == v && messageSlice(ia.X) {
				continue
			}
			return true
		case *ssa.Call:
			if !isMessage(&x.Call) && !buildsError(&x.Call) && !measures(&x.Call) {
				return true
			}
		case *ssa.Return:
			// Handed back to the caller: an answer, except while this
			// package's Reads facts are computed, which tell the bytes a
			// reader returns (its callers decide) from those it uses.
			if !r.returnsUndecided {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// measures: the call is len or cap, which looks at how much was read
// (a bound check), not at what.
func measures(c *ssa.CallCommon) bool {
	b, ok := c.Value.(*ssa.Builtin)
	return ok && (b.Name() == "len" || b.Name() == "cap")
}

// buildsError: the call returns only a value of a concrete error type (a
// helper that wraps a failed response's body into its *Error): what it is
// given ends in an error message. A function that returns the error
// interface (json.Unmarshal) says whether it worked, not what it built.
func buildsError(c *ssa.CallCommon) bool {
	res := c.Signature().Results()
	if res.Len() != 1 {
		return false
	}
	t := res.At(0).Type()
	if _, isInterface := t.Underlying().(*types.Interface); isInterface {
		return false
	}
	return types.Implements(t, errorInterface)
}

var errorInterface = types.Universe.Lookup("error").Type().Underlying().(*types.Interface)

// messageSlice: the array is only sliced into arguments of message calls.
func messageSlice(arr ssa.Value) bool {
	if _, ok := arr.(*ssa.Alloc); !ok {
		return false
	}
	for _, ref := range referrers(arr) {
		switch x := ref.(type) {
		case *ssa.IndexAddr:
		case *ssa.Slice:
			for _, sref := range referrers(x) {
				if c, ok := sref.(*ssa.Call); !ok || !isMessage(&c.Call) {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// isMessage: a call that formats an error or log message.
func isMessage(c *ssa.CallCommon) bool {
	fn := c.StaticCallee()
	switch calleePackage(fn) {
	case "fmt", "errors", "log", "log/slog":
		return fn.Name() != "Sscan" && fn.Name() != "Sscanf" && fn.Name() != "Sscanln"
	}
	return false
}

// onDemand is how go/ssa marks a method of a package the program did not
// create, built from its types when first called.
const onDemand = "from type information (on demand)"

// calleePackage is the path of the package that declares fn, "" for none
// (nil, a wrapper, a generic instance). flow creates SSA packages for the
// direct imports only (as buildssa does), so a method of an import's import
// has no Pkg; its declaring package is its object's, which is what Pkg was
// when every transitive import was created.
func calleePackage(fn *ssa.Function) string {
	switch {
	case fn == nil:
		return ""
	case fn.Pkg != nil:
		return fn.Pkg.Pkg.Path()
	case fn.Synthetic == onDemand:
		if obj, ok := fn.Object().(*types.Func); ok && obj.Pkg() != nil {
			return obj.Pkg().Path()
		}
	}
	return ""
}

// extracts returns the i-th results of a tuple-valued call.
func extracts(call *ssa.Call, i int) []ssa.Value {
	var out []ssa.Value
	for _, ref := range referrers(call) {
		if e, ok := ref.(*ssa.Extract); ok && e.Index == i {
			out = append(out, e)
		}
	}
	return out
}

func referrers(v ssa.Value) []ssa.Instruction {
	if refs := v.Referrers(); refs != nil {
		return *refs
	}
	return nil
}
