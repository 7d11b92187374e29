package lockfacts

import (
	"go/ast"
	"go/constant"
	"go/types"
	"reflect"
	"regexp"
	"strings"

	"github.com/gatesift/gatesift-vet/signals"
)

// This file reads the rows of a lock a project writes itself: a row
// inserted to take the lock and deleted to release it, over SQL text or an
// ORM builder, whatever the table is called. What makes the rows a lock is
// how the code uses them (see ProjectLocksWith), not the client library.

// RowOp is an insert or a delete of rows the analysis can read: SQL text
// that folds to a constant, or whose only non-constant part is the table
// name ("INSERT INTO " + cfg.LockTable + " ..."); or an ORM builder chain on
// a model whose struct tags give its columns.
type RowOp struct {
	Call  *ast.CallExpr
	What  string // the call, for messages: "ExecContext", "bun Exec"
	Verb  string // "insert" or "delete"
	Table string // what names the rows: "table locks", "table cfg.LockTable", "model Lock"
	// Text is the statement, its table part written as Label ("" for an
	// ORM chain).
	Text string
	// Label is Table as messages show it (the table expression as the
	// source writes it, when Table names it by value flow).
	Label string
	// Named: the table is an expression (cfg.LockTable), which names the
	// same table only within the functions of one receiver type.
	Named bool
	// Expiry: the statement or the model mentions an expiry or time
	// column, so the row can end or be judged stale.
	Expiry bool
	// Keyed: a delete whose predicate selects the lock by its key (name,
	// lock_id, the model's primary key); OwnerPred: it also tests an owner
	// or token column.
	Keyed, OwnerPred bool
	// Unique: an insert that fails or does nothing when the row exists
	// (ON CONFLICT DO NOTHING, a model with a primary or unique key, or
	// plain SQL text, whose schema the analysis cannot see).
	Unique bool
	// Upsert: an insert that overwrites an existing row (ON CONFLICT DO
	// UPDATE): not an insert-if-absent.
	Upsert bool
	// Doc: a document of a document store (MongoDB), with the fields of
	// the document inserted or of the delete's filter.
	Doc    bool
	Fields []DocField
}

// RowOps returns the row inserts and deletes in root; fold, when not nil,
// reads statements through value flow (see Folder); docs adds the
// document inserts and deletes (see doclock.go), not yet judged.
func RowOps(info *types.Info, kb *signals.Knowledge, fold Folder, docs bool, body *ast.BlockStmt, root ast.Node) []*RowOp {
	var out []*RowOp
	ast.Inspect(root, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn := Callee(info, call)
		if fn == nil {
			return true
		}
		api := kb.Match(signals.Locks, fn)
		if api == nil {
			return true
		}
		var op *RowOp
		switch {
		case strings.HasPrefix(api.Kind, "sql"):
			op = sqlRow(info, fold, body, api, call)
		case api.Kind == "orm-exec" || api.Kind == "orm-create" || api.Kind == "orm-destroy":
			op = ormRow(info, kb, call)
		case api.Kind == "upper-exec":
			op = upperRow(info, kb, call)
		case docs && (api.Kind == "doc-insert" || api.Kind == "doc-delete"):
			op = docRow(info, kb, body, api, call)
		}
		if op != nil {
			if op.Label == "" {
				op.Label = op.Table
			}
			out = append(out, op)
		}
		return true
	})
	return out
}

func sqlRow(info *types.Info, fold Folder, body *ast.BlockStmt, api *signals.API, call *ast.CallExpr) *RowOp {
	i, ok := api.Arg("query")
	if !ok || i >= len(call.Args) {
		return nil
	}
	text, hole, label, ok := foldArg(info, fold, body, call, i)
	if !ok {
		return nil
	}
	s := ParseSQL(text)
	if s.Verb != "insert" && s.Verb != "delete" {
		return nil
	}
	table := s.Table
	if hole != "" {
		if s.Table != holeName {
			return nil // a non-constant part elsewhere than the table: unknown text
		}
		table = hole
	}
	op := &RowOp{Call: call, What: api.Name, Verb: s.Verb, Table: "table " + table, Named: hole != "", Expiry: s.Expiry}
	op.Text = strings.TrimSpace(sqlSpace.ReplaceAllString(text, " "))
	if hole != "" {
		op.Label = "table " + label
		op.Text = strings.Replace(op.Text, holeName, label, 1)
	}
	if s.Verb == "insert" {
		op.Unique = true
		op.Upsert = sqlUpsert.MatchString(strings.ToLower(text))
		return op
	}
	q := strings.ToLower(text)
	if _, where, ok := strings.Cut(q, " where "); ok {
		op.Keyed, op.OwnerPred = predicate(where, nil)
	}
	return op
}

// predicate reads a WHERE clause: does it select by a key column (a name,
// an id, one of keys), and does it test an owner or token?
func predicate(where string, keys map[string]bool) (keyed, owner bool) {
	for _, w := range sqlWord.FindAllString(where, -1) {
		switch {
		case ownerColumn(w) || strings.Contains(w, "token") || strings.Contains(w, "fenc") ||
			w == "version" || w == "generation" || w == "epoch":
			owner = true
		case nameColumn(w) || keys[w] || w == "id" || w == "lock_id" ||
			strings.HasSuffix(w, "_id") || strings.HasSuffix(w, "_key") || strings.HasSuffix(w, "_name"):
			keyed = true
		}
	}
	return keyed, owner
}

// ormRow reads a builder chain that ends at exec:
// db.NewInsert().Model(&lock).Exec(ctx),
// db.NewDelete().Model((*Lock)(nil)).Where("lock_id = ?", id).Exec(ctx).
func ormRow(info *types.Info, kb *signals.Knowledge, exec *ast.CallExpr) *RowOp {
	op := &RowOp{Call: exec, What: "Exec"}
	if sel, ok := ast.Unparen(exec.Fun).(*ast.SelectorExpr); ok {
		op.What = sel.Sel.Name
	}
	clauses := false
	destroyConds := false
	var model *modelInfo
	var wheres []string
	pk, unknownPred := false, false
	on := ""
	for e := ast.Expr(exec); ; {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			break
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			break
		}
		fn := Callee(info, call)
		api := (*signals.API)(nil)
		if fn != nil {
			api = kb.Match(signals.Locks, fn)
		}
		arg := func(role string) ast.Expr {
			if api == nil {
				return nil
			}
			if i, ok := api.Arg(role); ok && i < len(call.Args) {
				return call.Args[i]
			}
			return nil
		}
		switch kind := ""; {
		case api != nil:
			kind = api.Kind
			switch kind {
			case "orm-insert":
				op.Verb = "insert"
			case "orm-delete":
				op.Verb = "delete"
			case "orm-model":
				model = readModel(info.TypeOf(arg("model")))
			case "orm-create":
				op.Verb = "insert"
				model = readModel(info.TypeOf(arg("model")))
			case "orm-destroy":
				op.Verb = "delete"
				model = readModel(info.TypeOf(arg("model")))
				if i, ok := api.Arg("query"); ok && i < len(call.Args) {
					destroyConds = true
					w, ok := StringConst(info, call.Args[i])
					if !ok {
						unknownPred = true
					}
					wheres = append(wheres, strings.ToLower(w))
				}
			case "orm-clauses":
				clauses = true
			case "orm-where":
				w, ok := StringConst(info, arg("query"))
				if !ok {
					unknownPred = true
				}
				if i, ok := api.Arg("query"); ok && i < len(call.Args) {
					w = bindIdents(info, w, call.Args[i+1:])
				}
				wheres = append(wheres, strings.ToLower(w))
			case "orm-wherepk":
				pk = true
				if len(call.Args) > 0 {
					unknownPred = true // WherePK("col"): columns we do not read
				}
			case "orm-on":
				w, ok := StringConst(info, arg("query"))
				if !ok {
					return nil
				}
				on = strings.ToLower(w)
			}
		case strings.Contains(sel.Sel.Name, "Where") || strings.Contains(sel.Sel.Name, "On"):
			unknownPred = true // a predicate or clause we cannot read
		}
		e = sel.X
	}
	if op.Verb == "" || model == nil {
		return nil
	}
	op.Table = "model " + model.name
	op.Expiry = model.expiry
	for _, w := range wheres {
		for _, word := range sqlWord.FindAllString(w, -1) {
			if !sqlKeyword[word] && expiryWord(word) {
				op.Expiry = true
			}
		}
	}
	if op.Verb == "insert" {
		if clauses {
			return nil // gorm Clauses(clause.OnConflict{...}): maybe an upsert
		}
		op.Unique = len(model.keys) > 0 || sqlOnNothing.MatchString("on "+on)
		op.Upsert = strings.Contains(on, "do update")
		return op
	}
	if unknownPred || clauses {
		return nil
	}
	if len(wheres) == 0 && !destroyConds && op.What == "Delete" {
		pk = true // gorm Delete(&m) with no condition deletes by m's primary key
	}
	if pk {
		op.Keyed = len(model.pk) > 0
		for _, c := range model.pk {
			if ownerColumn(c) {
				op.OwnerPred = true
			}
		}
	}
	for _, w := range wheres {
		k, o := predicate(w, model.keys)
		op.Keyed = op.Keyed || k
		op.OwnerPred = op.OwnerPred || o
	}
	return op
}

// bindIdents writes into a predicate's ? placeholders the column names
// bound to them as identifiers (bun.Ident("table_name")): Where("? = ?",
// bun.Ident("table_name"), name) tests the column table_name. Values bound
// to the other placeholders stay "?", so a value never reads as a column.
// A placeholder with no argument (an unreadable query) leaves the rest as is.
func bindIdents(info *types.Info, query string, args []ast.Expr) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		c := query[i]
		if c != '?' || i+1 < len(query) && (query[i+1] == '?' || isIdentByte(query[i+1])) {
			// ?? is an escaped mark, ?0 and ?Name are placeholders
			// this reading does not number
			b.WriteByte(c)
			continue
		}
		if n < len(args) {
			if col, ok := identArg(info, args[n]); ok {
				b.WriteString(col)
				n++
				continue
			}
		}
		n++
		b.WriteByte(c)
	}
	return b.String()
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// identArg: a constant of a string type named Ident (bun.Ident, an alias of
// schema.Ident; go-pg's pg.Ident), which a builder writes as a quoted
// column or table name, not as a value.
func identArg(info *types.Info, e ast.Expr) (string, bool) {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", false
	}
	named, ok := types.Unalias(tv.Type).(*types.Named)
	if !ok || named.Obj().Name() != "Ident" {
		return "", false
	}
	return constant.StringVal(tv.Value), true
}

// modelInfo is what a model struct's fields and tags say.
type modelInfo struct {
	name   string
	pk     []string        // primary-key columns
	keys   map[string]bool // primary-key and unique columns
	expiry bool            // a column named like an expiry or a time
}

// readModel reads the struct behind a model argument (&lock, (*Lock)(nil),
// Lock{}): bun tags `bun:"lock_id,pk"`, `bun:",unique"`; gorm tags
// `gorm:"primaryKey;column:lock_id"`, `gorm:"uniqueIndex"`; column names
// default to the field name in snake case. An auto-increment key (bun
// autoincrement, a gorm integer primary key) takes a new value on every
// insert, so it makes no insert fail: it is no key here.
func readModel(t types.Type) *modelInfo {
	if t == nil {
		return nil
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return nil
	}
	st, ok := named.Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	m := &modelInfo{name: named.Obj().Name(), keys: map[string]bool{}}
	m.fields(st, 0)
	return m
}

func (m *modelInfo) fields(st *types.Struct, depth int) {
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if f.Embedded() {
			if inner, ok := f.Type().Underlying().(*types.Struct); ok && depth < 2 {
				m.fields(inner, depth+1) // gorm.Model: ID, CreatedAt...
			}
			continue
		}
		col, key, pk := "", false, false
		if tag, ok := lookupTag(st.Tag(i), "bun"); ok {
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			col = name
			auto := strings.Contains(opts, "autoincrement")
			for _, o := range strings.Split(opts, ",") {
				switch o {
				case "pk":
					pk, key = true, !auto
				case "unique":
					key = true
				}
			}
		} else if tag, ok := lookupTag(st.Tag(i), "gorm"); ok {
			if tag == "-" {
				continue
			}
			integer := false
			if b, ok := f.Type().Underlying().(*types.Basic); ok && b.Info()&types.IsInteger != 0 {
				integer = true
			}
			for _, o := range strings.Split(tag, ";") {
				k, v, _ := strings.Cut(strings.TrimSpace(o), ":")
				switch strings.ToLower(k) {
				case "column":
					col = v
				case "primarykey", "primary_key":
					pk, key = true, !integer || strings.Contains(strings.ToLower(tag), "autoincrement:false")
				case "unique", "uniqueindex":
					key = true
				}
			}
		}
		if col == "" {
			col = snakeCase(f.Name())
		}
		if pk {
			m.pk = append(m.pk, col)
		}
		if key {
			m.keys[col] = true
		}
		if expiryWord(col) {
			m.expiry = true
		}
	}
}

func lookupTag(tag, key string) (string, bool) {
	return reflect.StructTag(tag).Lookup(key)
}

var sqlUpsert = regexp.MustCompile(`on\s+conflict\b.*\bdo\s+update`)

func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 && !(s[i-1] >= 'A' && s[i-1] <= 'Z') {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
