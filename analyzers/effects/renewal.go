package effects

import (
	"go/ast"

	"golang.org/x/tools/go/ssa"
)

// Renewal is a call that extends the expiry of a row this replica holds: an
// UPDATE that moves a lease's or a message's visibility timeout
// (sqltext.ExtendsExpiry), keyed by the instance's own identity or by what
// a claim returned to it, run directly or through helpers and interface
// implementations. Such a write is no shared-state effect (the row is the
// replica's own); LE4001 asks what happens when it fails.
type Renewal struct {
	Key      string // whose row: "the instance's identity (os.Hostname())", "what a claim returned (...)"
	Resource string // "table leases", "" when the table is not constant
	Via      string // the helper the statement is reached through, "" when direct
	Where    string // file:line of the statement's call
}

func (r *Result) noteRenewal(ev *Event, e Effect, key, via string) {
	if !e.Extends || ev.Renewal != nil {
		return
	}
	where := e.Where
	if where == "" {
		where = r.where(ev.Call.Pos())
	}
	ev.Renewal = &Renewal{Key: key, Resource: e.Resource, Via: via, Where: where}
}

// Renewal returns what call renews, or nil when it is no renewal of a row
// this replica holds (or the analysis cannot tell).
func (r *Result) Renewal(call *ast.CallExpr) *Renewal {
	if r.failure != "" || r.pass == nil {
		return nil
	}
	ev, _ := r.callEvent(call)
	return ev.Renewal
}

// CallValue returns the SSA call of a call expression that is a value (not
// a go or defer statement), nil when there is none or more than one (an
// instantiated generic). It builds the package's SSA form on first use.
func (r *Result) CallValue(call *ast.CallExpr) *ssa.Call {
	if r.failure != "" || r.pass == nil {
		return nil
	}
	fl := r.flow()
	list := fl.calls[call.Lparen]
	if len(list) != 1 {
		return nil
	}
	return fl.values[list[0]]
}

// HeldRenewal is what a renewal statement says about the row's holder
// (the same reading as Renewal's: an UPDATE that moves an expiry column,
// sqltext.ExtendsExpiry, and claims nothing), whoever its key names. When
// its WHERE clause names the holder (AND worker = ?) it matches no row
// once another holder has taken the row over, so its affected-row count,
// or its RETURNING answer, is the only news that the hold was lost. When
// it does not, while the table's claim writes a holder column, it extends
// whoever holds the row now.
type HeldRenewal struct {
	Holder     string // the WHERE column that names the holder ("worker"), "" when none
	SetsHolder string // the holder column the SET list assigns (a claim's write), "" when none
	OnlyExpiry bool   // the SET list moves the expiry and nothing else
	Resource   string // "table activities", "" when the table is not constant
	Returning  bool   // the statement returns the rows it renewed
	Where      string // file:line of the statement's call
}

// Held returns what the renewal statement that call runs (the statement's
// own call, or a helper's that it is handed to) says about the holder,
// nil when call runs none or the statement cannot be read.
func (r *Result) Held(call *ast.CallExpr) *HeldRenewal {
	if r.failure != "" || r.pass == nil {
		return nil
	}
	ev, _ := r.callEvent(call)
	return ev.Held
}
