package effects

// What a piece of code reaches, call by call: Scan and the events it lists.

import (
	"fmt"
	"go/ast"
	"go/types"
)

// Event is one call of interest found by Scan, in source order.
type Event struct {
	Call *ast.CallExpr // nil for coordination that is no call (an ownership test)
	// Node is where the coordination is when it is not a call: the
	// condition of an if that partitions the work by ownership.
	Node    ast.Node
	Effects []Effect // reached by this call
	// Coordination names coordination taken by this call ("" for none).
	Coordination string
	// Gate: the coordination is a claim whose answer the function returns;
	// it coordinates a caller only when the caller checks that answer.
	Gate      bool
	Consume   bool
	Telemetry bool          // reads the process's own statistics
	Queries   []QueryParam  // query statements handed in by the caller
	Scripts   []ScriptParam // Redis scripts handed in by the caller
	// Renewal: the call extends the expiry of a row this replica holds
	// (renewal.go); its write is no effect, being per-replica or claimed.
	Renewal *Renewal
	// Held: the call runs a renewal statement (renewal.go), whoever the
	// key names.
	Held *HeldRenewal
}

// At returns where the event is: its call, or the node of a coordination
// that is no call.
func (e *Event) At() ast.Node {
	if e.Call != nil {
		return e.Call
	}
	return e.Node
}

// Scanned is the ordered list of events in a piece of code.
type Scanned struct {
	Events []Event
}

// Effects returns every effect, in order.
func (s *Scanned) Effects() []Effect {
	var out []Effect
	for _, e := range s.Events {
		out = append(out, e.Effects...)
	}
	return out
}

// FirstCoordination returns the first coordination event that comes before
// the first effect, or nil.
func (s *Scanned) FirstCoordination() *Event {
	for i := range s.Events {
		e := &s.Events[i]
		if e.Coordination != "" {
			return e
		}
		if len(e.Effects) > 0 {
			return nil
		}
	}
	return nil
}

// Consumes reports whether the code pulls work from a queue.
func (s *Scanned) Consumes() bool {
	for _, e := range s.Events {
		if e.Consume {
			return true
		}
	}
	return false
}

// Telemetry reports whether the code reads the process's own statistics.
func (s *Scanned) Telemetry() bool {
	for _, e := range s.Events {
		if e.Telemetry {
			return true
		}
	}
	return false
}

// Summary folds the events into a function summary.
func (s *Scanned) Summary(fn *types.Func) *Summary {
	sum := &Summary{Consumes: s.Consumes(), Telemetry: s.Telemetry()}
	for _, e := range s.Events {
		for _, q := range e.Queries {
			if len(sum.Queries) < maxEffects {
				sum.Queries = append(sum.Queries, q)
			}
		}
		for _, sp := range e.Scripts {
			if len(sum.Scripts) < maxEffects {
				sum.Scripts = append(sum.Scripts, sp)
			}
		}
	}
	if c := s.FirstCoordination(); c != nil {
		sum.Coordination, sum.Gate = c.Coordination, c.Gate
		return sum // the effects are behind coordination: not the caller's problem
	}
	seen := map[string]bool{}
	for _, e := range s.Effects() {
		// (the tests too: one effect reached by two branches runs under
		// either's, and keeping one would lose the other)
		key := fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%s\x00%v\x00%v\x00%v", e.Kind, e.Resource, e.API, e.Stmt, e.ReadModifyWrite, e.Keys, e.Extends, e.Tests)
		if seen[key] || len(sum.Effects) == maxEffects {
			continue
		}
		seen[key] = true
		if e.Via == "" && fn != nil {
			e.Via = funcName(fn)
		}
		sum.Effects = append(sum.Effects, e)
	}
	return sum
}

// Scan lists the effects and coordination that node reaches, in source order.
// Function literals handed to a coordinator (an election callback, the
// elector's work function) are coordinated and left out.
func (r *Result) Scan(node ast.Node) *Scanned {
	out := new(Scanned)
	if node == nil {
		return out
	}
	skip := map[*ast.FuncLit]bool{}
	var ifs []pendingIf
	var ranges []*ast.RangeStmt
	rests := map[*ast.IfStmt]blockRest{}
	ast.Inspect(node, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return !skip[n]
		case *ast.BlockStmt:
			markBlock(rests, n.List, n.End())
		case *ast.CaseClause:
			markBlock(rests, n.Body, n.End())
		case *ast.CommClause:
			markBlock(rests, n.Body, n.End())
		case *ast.IfStmt:
			ifs = append(ifs, pendingIf{stmt: n, at: len(out.Events), rest: rests[n]})
		case *ast.RangeStmt:
			ranges = append(ranges, n)
		case *ast.BinaryExpr:
			if ev, ok := r.leaderStateEvent(n); ok {
				out.Events = append(out.Events, ev)
			}
		case *ast.CallExpr:
			ev, coordinated := r.event(n)
			for _, lit := range coordinated {
				skip[lit] = true
			}
			if len(ev.Effects) > 0 || ev.Coordination != "" || ev.Consume || ev.Telemetry || len(ev.Queries) > 0 || len(ev.Scripts) > 0 {
				out.Events = append(out.Events, ev)
			}
		}
		return true
	})
	r.ownershipEvents(out, ifs, ranges)
	return out
}
