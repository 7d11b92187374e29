package effects

// The guards of the read-modify-write class (readmodifywrite.go): what
// serialises a read and its incremented write, or keeps them off shared
// state, so that the pair is no accumulating effect.

import (
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/sqltext"
	"github.com/gatesift/gatesift-vet/signals"
)

// opaqueStore: a write whose effect the analysis cannot see counts only
// on a store that may be shared: the write can fail (an error result), and
// no implementation the analysis reads is process-local.
func (r *Result) opaqueStore(h *rmwHit) bool {
	sig, ok := h.writeFn.Type().(*types.Signature)
	if !ok || sig.Results().Len() == 0 || !isError(sig.Results().At(sig.Results().Len()-1).Type()) {
		return false
	}
	if h.write.IsInvoke() {
		for _, impl := range r.implementations(h.writeFn) {
			if len(r.Of(impl).Effects) == 0 {
				return false // an implementation in sight keeps it in memory
			}
		}
		return true
	}
	// A concrete store whose write reaches shared state (a knowledge-base
	// API, read here or summarised in facts) has a known effect and is not
	// asked here. One whose write reaches none may still be shared only as
	// a network client (a connection among its fields): without one, a
	// type of another package may keep a local file (a write-ahead log on
	// this replica's disk), memory, or code out of sight.
	if r.Decl(h.writeFn) != nil {
		return false // a concrete store of this package that reaches no shared state
	}
	return networkClient(receiverOf(h.write).Type(), 0)
}

// networkPkgs hold the connection types of a network client.
var networkPkgs = map[string]bool{
	"net": true, "net/http": true, "net/rpc": true, "google.golang.org/grpc": true,
}

// networkClient: a type that holds a network connection or client
// (net.Conn, *http.Client, *grpc.ClientConn, grpc.ClientConnInterface),
// itself or in a field, followed through pointers and struct fields a few
// levels down.
func networkClient(t types.Type, depth int) bool {
	if depth > 3 {
		return false
	}
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil && networkPkgs[n.Obj().Pkg().Path()] {
		return true
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := 0; i < st.NumFields(); i++ {
		if networkClient(st.Field(i).Type(), depth+1) {
			return true
		}
	}
	return false
}

var forUpdate = regexp.MustCompile(`\bfor\s+(?:no\s+key\s+)?update\b`)

// lockingRead: the read is SELECT ... FOR UPDATE made on a transaction
// (the write is on the same receiver, so in the same transaction): the row
// stays locked until the write commits.
func (r *Result) lockingRead(readCall *ast.CallExpr, h *rmwHit) bool {
	fn := calleeFunc(h.read)
	if fn == nil {
		return false
	}
	a := r.kb.Match(signals.Effects, fn)
	if a == nil {
		return false
	}
	i, ok := a.Arg("query")
	if !ok {
		return false
	}
	text, ok := r.statementText(readCall, i)
	if !ok || !forUpdate.MatchString(sqltext.Normalize(text)) {
		return false
	}
	return transactionType(receiverOf(h.read).Type())
}

// transactionType: sql.Tx, pgx.Tx, a project's Transaction.
func transactionType(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	name := n.Obj().Name()
	return name == "Tx" || strings.HasSuffix(name, "Tx") || strings.Contains(name, "Transaction")
}

// answerChecked: a compare-and-set's answer decides what happens next: its
// bool (swapped or not) when it has one, else its error (a version
// conflict).
func (r *Result) answerChecked(call *ast.CallExpr, h *rmwHit) bool {
	res := h.write.Signature().Results()
	for i := 0; i < res.Len(); i++ {
		if b, ok := res.At(i).Type().Underlying().(*types.Basic); ok && b.Kind() == types.Bool {
			return r.gate(call).checked
		}
	}
	return errorChecked(h.writeValue)
}

// errorChecked: the write's error result is used (compared, returned,
// handed on), not dropped.
func errorChecked(call *ssa.Call) bool {
	if call == nil {
		return false
	}
	res := call.Call.Signature().Results()
	for i := 0; i < res.Len(); i++ {
		if !isError(res.At(i).Type()) {
			continue
		}
		vals := []ssa.Value{call}
		if res.Len() > 1 {
			vals = extracts(call, i)
		}
		for _, v := range vals {
			for _, ref := range referrers(v) {
				if _, debug := ref.(*ssa.DebugRef); !debug {
					return true
				}
			}
		}
	}
	return false
}

// writeAnswerUsed: the candidate write's answer carries data that is used:
// a non-status result, or a predicate's bool.
func writeAnswerUsed(w storeCall) bool {
	sig := w.common.Signature()
	if statusOnly(sig) {
		return predicateName.MatchString(w.fn.Name()) && usedAsData(w.value)
	}
	res := sig.Results()
	vals := []ssa.Value{w.value}
	if res.Len() > 1 {
		vals = nil
		for i := 0; i < res.Len(); i++ {
			t := res.At(i).Type()
			if b, ok := t.Underlying().(*types.Basic); isError(t) || ok && b.Kind() == types.Bool {
				continue
			}
			vals = append(vals, extracts(w.value, i)...)
		}
	}
	for _, v := range vals {
		if dataUse(v) {
			return true
		}
	}
	return false
}

// oldPassed: the write takes the old value next to the new one (an
// argument derived from the read, not incremented, of the new value's
// type), or a version-like field read with it.
func oldPassed(c *ssa.CallCommon, lv map[ssa.Value]int) bool {
	args := callArgs(c)
	for i, a := range args {
		a = unwrap(a)
		if lv[a] == 0 {
			continue
		}
		if versionLike(a) {
			return true
		}
		if lv[a] != derived {
			continue
		}
		for j, b := range args {
			b = unwrap(b)
			if j != i && lv[b] == incremented && types.Identical(a.Type(), b.Type()) {
				return true
			}
		}
	}
	return false
}

// versionLike: a load of a version, etag or revision field.
func versionLike(v ssa.Value) bool {
	switch x := v.(type) {
	case *ssa.UnOp:
		if fa, ok := x.X.(*ssa.FieldAddr); ok && x.Op == token.MUL {
			if f := fieldOf(fa.X.Type(), fa.Field); f != nil {
				return versionField.MatchString(f.Name())
			}
		}
	case *ssa.Field:
		if f := fieldOf(x.X.Type(), x.Field); f != nil {
			return versionField.MatchString(f.Name())
		}
	}
	return false
}

// writesBack: one of the write's incremented arguments has the type of a
// data result of the read, or of its elements (a record of a list read),
// pointers aside: the value read is what goes back, moved on. A write
// handed a value of another type derived from the read (the revision
// after the last row read, an offset past a page) may use it as a key or
// a position; through an opaque store that is no evidence of a lost
// update.
func writesBack(read *ssa.CallCommon, args []ssa.Value, lv map[ssa.Value]int) bool {
	var readTypes []types.Type
	res := read.Signature().Results()
	for i := 0; i < res.Len(); i++ {
		t := res.At(i).Type()
		if isError(t) {
			continue
		}
		readTypes = append(readTypes, derefType(t))
		switch u := derefType(t).Underlying().(type) {
		case *types.Slice:
			readTypes = append(readTypes, derefType(u.Elem()))
		case *types.Array:
			readTypes = append(readTypes, derefType(u.Elem()))
		case *types.Map:
			readTypes = append(readTypes, derefType(u.Elem()))
		}
	}
	for _, a := range args {
		if lv[a] != incremented {
			continue
		}
		for _, t := range []types.Type{a.Type(), unwrap(a).Type()} {
			for _, rt := range readTypes {
				if types.Identical(derefType(t), rt) {
					return true
				}
			}
		}
	}
	return false
}

func derefType(t types.Type) types.Type {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}
