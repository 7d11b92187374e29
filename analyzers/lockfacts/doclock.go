package lockfacts

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strings"

	"github.com/gatesift/gatesift-vet/signals"
)

// This file reads the documents of a lock a project keeps in a document
// store (MongoDB): a document inserted on a unique key (a unique index the
// package creates, or an _id the code sets) to take the lock, deleted by
// that key to release it. What can end the document is package-wide: a TTL
// index, a filter that compares (a stale holder's document taken over or
// swept), or an expiry field in the document itself.

// docRow reads a document insert or delete: the collection, and the
// fields of the document or filter as the analysis can see them (struct
// bson tags, bson.M / bson.D literals).
func docRow(info *types.Info, kb *signals.Knowledge, body *ast.BlockStmt, api *signals.API, call *ast.CallExpr) *RowOp {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	coll, named := collectionName(info, kb, sel.X)
	i, ok := api.Arg("doc")
	if !ok {
		i, ok = api.Arg("filter")
	}
	if !ok || i >= len(call.Args) {
		return nil
	}
	fields, ok := docFields(info, body, call.Args[i], call.Pos())
	if !ok {
		return nil
	}
	op := &RowOp{Call: call, What: api.Name, Table: "collection " + coll, Named: named, Doc: true, Fields: fields}
	switch api.Kind {
	case "doc-insert":
		op.Verb = "insert"
		for _, f := range fields {
			if docExpiryField(f.Name) {
				op.Expiry = true
			}
		}
	case "doc-delete":
		op.Verb = "delete"
	default:
		return nil
	}
	return op
}

// DocField is one field of a document or a filter.
type DocField struct {
	Name string
	// Key: a value that can repeat from one insert to the next (a string
	// or an integer), unlike a generated ObjectID or an interface value.
	Key bool
	// Unique: the field makes an insert of the document fail when one
	// with the same value exists (set by docPackage.judge).
	Unique bool
}

// collectionName names the collection a call's receiver is: the name given
// to Database.Collection (constant, or the expression, named per receiver
// type), or the receiver expression itself (l.coll).
func collectionName(info *types.Info, kb *signals.Knowledge, recv ast.Expr) (string, bool) {
	if c, ok := ast.Unparen(recv).(*ast.CallExpr); ok {
		if api := kb.Match(signals.Locks, Callee(info, c)); api != nil && api.Kind == "doc-collection" {
			if i, ok := api.Arg("name"); ok && i < len(c.Args) {
				if s, ok := StringConst(info, c.Args[i]); ok {
					return s, false
				}
				return ExprText(c.Args[i]), true
			}
		}
	}
	return ExprText(recv), true
}

// docFields returns the fields of a document or filter argument: a struct
// (its bson tags, or the lower-cased field names the driver uses), or a
// bson.M / bson.D literal, also through a local variable assigned once.
// ok is false when the fields cannot be seen.
func docFields(info *types.Info, body *ast.BlockStmt, e ast.Expr, use token.Pos) ([]DocField, bool) {
	t := info.TypeOf(e)
	if t == nil {
		return nil, false
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	if st, ok := t.Underlying().(*types.Struct); ok {
		return structDocFields(st, 0), true
	}
	lit := ResolveLiteral(info, body, e, use)
	if lit == nil {
		return nil, false
	}
	var out []DocField
	for _, elt := range lit.Elts {
		var key, value ast.Expr
		switch x := elt.(type) {
		case *ast.KeyValueExpr: // bson.M{"_id": name}
			key, value = x.Key, x.Value
		case *ast.CompositeLit: // bson.D{{"_id", name}} or {Key: "_id", Value: name}
			if len(x.Elts) != 2 {
				return nil, false
			}
			key, value = x.Elts[0], x.Elts[1]
			if kv, ok := key.(*ast.KeyValueExpr); ok {
				key = kv.Value
			}
			if kv, ok := value.(*ast.KeyValueExpr); ok {
				value = kv.Value
			}
		default:
			return nil, false
		}
		name, ok := StringConst(info, key)
		if !ok {
			return nil, false
		}
		out = append(out, DocField{Name: name, Key: keyValueType(info.TypeOf(value))})
	}
	return out, true
}

func structDocFields(st *types.Struct, depth int) []DocField {
	var out []DocField
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		tag, _ := reflect.StructTag(st.Tag(i)).Lookup("bson")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || !f.Exported() {
			continue
		}
		if f.Embedded() || strings.Contains(opts, "inline") {
			if inner, ok := f.Type().Underlying().(*types.Struct); ok && depth < 2 {
				out = append(out, structDocFields(inner, depth+1)...)
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name())
		}
		out = append(out, DocField{Name: name, Key: keyValueType(f.Type())})
	}
	return out
}

func keyValueType(t types.Type) bool {
	if t == nil {
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsString|types.IsInteger) != 0
}

// docExpiryField: a field that says the document ends (expiresAt,
// lease_until, ttl); a creation time is not one, unless something compares
// it (docPackage.compares).
func docExpiryField(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"expir", "until", "ttl", "lease", "deadline", "heartbeat", "valid", "stale", "timeout"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// docPackage is what the whole package says about its documents.
type docPackage struct {
	unique map[string]bool // fields of unique indexes the package creates
	// ending: a TTL index, or a filter with a comparison operator, so a
	// lock document may end or be taken over
	ending bool
}

var docCompare = map[string]bool{"$lt": true, "$lte": true, "$gt": true, "$gte": true, "$expr": true, "$where": true, "expireAfterSeconds": true}

func scanDocs(info *types.Info, kb *signals.Knowledge, files []*ast.File) *docPackage {
	d := &docPackage{unique: map[string]bool{}}
	for _, fd := range Funcs(files) {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			api := kb.Match(signals.Locks, Callee(info, call))
			if api == nil {
				return true
			}
			switch api.Kind {
			case "doc-index-option":
				if api.Name == "SetExpireAfterSeconds" {
					d.ending = true
				}
			case "doc-filter", "doc-delete":
				for _, a := range call.Args {
					ast.Inspect(a, func(m ast.Node) bool {
						if e, ok := m.(ast.Expr); ok {
							if s, ok := StringConst(info, e); ok && docCompare[s] {
								d.ending = true
							}
						}
						return !d.ending
					})
				}
			case "doc-index":
				if i, ok := api.Arg("model"); ok && i < len(call.Args) {
					d.indexes(info, kb, fd.Body, call.Args[i], call.Pos())
				}
			}
			return true
		})
	}
	return d
}

// indexes reads IndexModel literals (one, or a slice of them) whose
// options say SetUnique(true), and records their key fields.
func (d *docPackage) indexes(info *types.Info, kb *signals.Knowledge, body *ast.BlockStmt, e ast.Expr, use token.Pos) {
	lit := ResolveLiteral(info, body, e, use)
	if lit == nil {
		return
	}
	if _, ok := info.TypeOf(lit).Underlying().(*types.Slice); ok {
		for _, elt := range lit.Elts {
			d.indexes(info, kb, body, elt, use)
		}
		return
	}
	var keys, opts ast.Expr
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			return
		}
		switch id, _ := kv.Key.(*ast.Ident); {
		case id == nil:
		case id.Name == "Keys":
			keys = kv.Value
		case id.Name == "Options":
			opts = kv.Value
		}
	}
	if keys == nil || opts == nil || !uniqueOption(info, kb, body, opts, use) {
		return
	}
	fields, ok := docFields(info, body, keys, use)
	if !ok {
		return
	}
	for _, f := range fields {
		d.unique[f.Name] = true
	}
}

// uniqueOption: an options chain (options.Index().SetUnique(true)...), also
// through a local variable, that sets unique to the constant true.
func uniqueOption(info *types.Info, kb *signals.Knowledge, body *ast.BlockStmt, e ast.Expr, use token.Pos) bool {
	for depth := 0; depth < 8; depth++ {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			v := onlyAssignment(info, body, id, use)
			if v == nil {
				return false
			}
			e = v
			continue
		}
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return false
		}
		if api := kb.Match(signals.Locks, Callee(info, call)); api != nil && api.Name == "SetUnique" && len(call.Args) == 1 {
			if tv, ok := info.Types[call.Args[0]]; ok && tv.Value != nil && tv.Value.String() == "true" {
				return true
			}
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return false
		}
		e = sel.X
	}
	return false
}

// judge completes a document insert or delete with what the package says:
// an insert takes a lock only on a unique key (a unique index's field, or
// an _id the code sets to a repeatable value); a delete selects the lock
// by that key, and perhaps its owner.
func (d *docPackage) judge(op *RowOp) {
	for i := range op.Fields {
		f := &op.Fields[i]
		key := d.unique[f.Name] || f.Name == "_id" && f.Key
		f.Unique = key
		switch op.Verb {
		case "insert":
			op.Unique = op.Unique || key
		case "delete":
			op.Keyed = op.Keyed || key || f.Name == "_id"
			op.OwnerPred = op.OwnerPred || ownerColumn(strings.ToLower(f.Name)) || strings.Contains(strings.ToLower(f.Name), "token")
		}
	}
}
