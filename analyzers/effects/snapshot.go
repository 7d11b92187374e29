package effects

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// A snapshot overwrite is a write, through a store interface of the
// project whose implementations are out of sight (a storage driver
// registered by another package), of a serialisation of this process's
// own in-memory state to one fixed key: `d.PutContent(ctx, "/state.json",
// json.Marshal(s.entries))`. Every replica holds its own entries, so each
// write replaces what the others wrote: updates are lost. It is not an
// idempotent set (the replicas write different values to one key), so it
// counts as an accumulating effect.
//
// Only what stays precise counts:
//   - the callee is a method of an interface declared outside GOROOT whose
//     name is a store write (Put, PutContent, PutObject, Upload, Save,
//     Store, Write, WriteFile), returning an error, and the interface has
//     a read method too (Get, GetContent, Read, Reader, Load, Download,
//     Stat, Fetch): a blob or key-value store;
//   - no implementation of it is in sight (an implementation found decides
//     instead: a local-disk driver has no shared effect, implementations.go);
//   - the key (the first string argument) is a constant, or a field of a
//     struct of this package set only from constants or from a parameter
//     of the function that builds the struct, never from anything else;
//   - the payload (a []byte argument) is the result, assigned once, of
//     encoding/json or encoding/xml Marshal of a map or slice field: the
//     process's own state.
//
// A key built with the instance's identity (a host name) is neither, so
// the instance's own file stays per-replica.

// snapshotWriteNames are store-write method names.
var snapshotWriteNames = map[string]bool{
	"Put": true, "PutContent": true, "PutObject": true, "PutBlob": true, "Upload": true,
	"Save": true, "Store": true, "Write": true, "WriteFile": true,
}

// snapshotReadPrefixes are the beginnings of a store's read method names.
var snapshotReadPrefixes = []string{"Get", "Read", "Load", "Download", "Stat", "Fetch"}

// snapshotWrite adds the effect of a snapshot overwrite to ev.
func (r *Result) snapshotWrite(call *ast.CallExpr, ev *Event) {
	fn := r.snapshotMethod(r.pass.TypesInfo, call)
	if fn == nil || len(r.implementations(fn)) > 0 {
		return
	}
	var key, payload ast.Expr
	for _, a := range call.Args {
		t := r.pass.TypesInfo.TypeOf(a)
		if t == nil {
			continue
		}
		if b, ok := t.Underlying().(*types.Basic); ok && b.Kind() == types.String && key == nil {
			key = a
		}
		if s, ok := t.Underlying().(*types.Slice); ok && payload == nil {
			if b, ok := s.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Byte {
				payload = a
			}
		}
	}
	if key == nil || payload == nil {
		return
	}
	keyDesc := r.sharedKey(key)
	if keyDesc == "" {
		return
	}
	field := r.localSnapshot(call, payload)
	if field == "" {
		return
	}
	ev.Effects = append(ev.Effects, Effect{
		Kind:     "write",
		Resource: fmt.Sprintf("store key %s, overwritten with this process's own snapshot of %s (other replicas' entries lost)", keyDesc, field),
		API:      apiName(fn),
		Where:    r.where(call.Pos()),
	})
}

// snapshotMethod returns the interface method a call writes a store
// through, nil when the call is not one (see above).
func (r *Result) snapshotMethod(info *types.Info, call *ast.CallExpr) *types.Func {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	s, ok := info.Selections[sel]
	if !ok || s.Kind() != types.MethodVal || !snapshotWriteNames[sel.Sel.Name] {
		return nil
	}
	fn, _ := s.Obj().(*types.Func)
	if fn == nil || fn.Pkg() == nil || InGOROOT(r.pass.Fset.Position(fn.Pos()).Filename) {
		return nil
	}
	iface, ok := s.Recv().Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Results().Len() == 0 || !isError(sig.Results().At(sig.Results().Len()-1).Type()) {
		return nil
	}
	for i := 0; i < iface.NumMethods(); i++ {
		m := iface.Method(i)
		for _, p := range snapshotReadPrefixes {
			if strings.HasPrefix(m.Name(), p) && !snapshotWriteNames[m.Name()] {
				return fn
			}
		}
	}
	return nil
}

// snapshotCandidate: the package has a call that snapshotMethod accepts,
// so the fast exit must not be taken.
func snapshotCandidate(pass *analysis.Pass, r *Result) bool {
	found := false
	for _, f := range pass.Files {
		if found || strings.HasSuffix(pass.Fset.File(f.Pos()).Name(), "_test.go") {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && !found && r.snapshotMethod(pass.TypesInfo, call) != nil {
				found = true
			}
			return !found
		})
	}
	return found
}

// sharedKey describes a key that is the same on every replica: a
// constant, or a field of a struct of this package set only from
// constants or from parameters of the functions that build it; "" for
// any other key.
func (r *Result) sharedKey(e ast.Expr) string {
	if s, ok := r.constString(e); ok {
		return fmt.Sprintf("%q", s)
	}
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	field, ok := r.pass.TypesInfo.Uses[sel.Sel].(*types.Var)
	if !ok || !field.IsField() || field.Pkg() != r.pass.Pkg || ownWord(field.Name()) {
		return ""
	}
	var from []string
	bad := false
	check := func(v ast.Expr, at ast.Node) {
		if s, ok := r.constString(v); ok {
			from = append(from, fmt.Sprintf("%q", s))
			return
		}
		if id, ok := ast.Unparen(v).(*ast.Ident); ok && !ownWord(id.Name) {
			if p, ok := r.pass.TypesInfo.Uses[id].(*types.Var); ok && r.isParamOf(p, at) {
				from = append(from, "parameter "+id.Name)
				return
			}
		}
		bad = true
	}
	for _, f := range r.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok && r.pass.TypesInfo.Uses[id] == field {
					check(n.Value, n)
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					if s, ok := ast.Unparen(lhs).(*ast.SelectorExpr); ok && r.pass.TypesInfo.Uses[s.Sel] == field {
						if len(n.Lhs) != len(n.Rhs) || n.Tok != token.ASSIGN {
							bad = true
							continue
						}
						check(n.Rhs[i], n)
					}
				}
			case *ast.UnaryExpr:
				if s, ok := ast.Unparen(n.X).(*ast.SelectorExpr); ok && n.Op == token.AND && r.pass.TypesInfo.Uses[s.Sel] == field {
					bad = true // its address escapes: anything may set it
				}
			}
			return !bad
		})
	}
	if bad || len(from) == 0 {
		return ""
	}
	return fmt.Sprintf("%s (set from %s)", types.ExprString(sel), strings.Join(from, ", "))
}

// isParamOf: p is a parameter of the function declaration around at.
func (r *Result) isParamOf(p *types.Var, at ast.Node) bool {
	decl := r.enclosingDecl(at)
	if decl == nil {
		return false
	}
	for _, f := range decl.Type.Params.List {
		for _, n := range f.Names {
			if r.pass.TypesInfo.Defs[n] == p {
				return true
			}
		}
	}
	return false
}

// ownWords name the instance itself in a key's field or parameter.
var ownWords = map[string]bool{
	"host": true, "hostname": true, "node": true, "instance": true, "pod": true,
	"replica": true, "member": true, "self": true, "own": true, "id": true, "uuid": true,
}

func ownWord(name string) bool {
	for _, w := range identWords(name) {
		if ownWords[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

// localSnapshot returns the field whose serialisation the payload is
// (`b, err := json.Marshal(s.entries)`, b assigned once), "" otherwise.
func (r *Result) localSnapshot(call *ast.CallExpr, payload ast.Expr) string {
	id, ok := ast.Unparen(payload).(*ast.Ident)
	if !ok {
		return ""
	}
	obj := r.pass.TypesInfo.Uses[id]
	decl := r.enclosingDecl(call)
	if obj == nil || decl == nil {
		return ""
	}
	field := ""
	assigns := 0
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for i, lhs := range as.Lhs {
			lid, ok := lhs.(*ast.Ident)
			if !ok || r.pass.TypesInfo.ObjectOf(lid) != obj {
				continue
			}
			assigns++
			if i != 0 || len(as.Rhs) != 1 {
				continue
			}
			if f := r.marshalledField(as.Rhs[0]); f != "" {
				field = f
			}
		}
		return true
	})
	if assigns != 1 {
		return ""
	}
	return field
}

// marshalledField: e is encoding/json or encoding/xml Marshal (or
// MarshalIndent) of a map or slice field; its name.
func (r *Result) marshalledField(e ast.Expr) string {
	c, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(c.Args) == 0 {
		return ""
	}
	sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	fn, _ := r.pass.TypesInfo.Uses[sel.Sel].(*types.Func)
	if fn == nil || fn.Pkg() == nil || (fn.Pkg().Path() != "encoding/json" && fn.Pkg().Path() != "encoding/xml") ||
		(fn.Name() != "Marshal" && fn.Name() != "MarshalIndent") {
		return ""
	}
	arg := ast.Unparen(c.Args[0])
	if u, ok := arg.(*ast.UnaryExpr); ok && u.Op == token.AND {
		arg = ast.Unparen(u.X)
	}
	fs, ok := arg.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	v, ok := r.pass.TypesInfo.Uses[fs.Sel].(*types.Var)
	if !ok || !v.IsField() {
		return ""
	}
	switch v.Type().Underlying().(type) {
	case *types.Map, *types.Slice:
		return types.ExprString(fs)
	}
	return ""
}
