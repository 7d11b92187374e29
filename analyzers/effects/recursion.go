package effects

import (
	"go/types"
	"reflect"
	"slices"
	"strings"
)

// components runs Tarjan's strongly connected components algorithm along
// the recursion of Result.Of, whose calls of Of are the call graph's edges.
// A function in a cycle (mutually recursive functions, possibly in
// different files, or one that calls itself) cannot be summarized alone: the
// call back into the cycle sees a summary that is not final, and which one
// depends on where the walk entered the cycle, that is on the order the
// driver parsed the files in. So a component's summaries are computed
// together when it closes (Result.settle), from nothing, in source order,
// until they stop changing.
type components struct {
	index map[*types.Func]int // DFS number of the functions of open components
	low   map[*types.Func]int
	stack []*types.Func // Tarjan's stack: functions of open components
	path  []*types.Func // Of's own call path; its last element is the caller
	self  map[*types.Func]bool
	next  int
}

func (c *components) open(fn *types.Func) bool {
	_, ok := c.index[fn]
	return ok
}

// enter starts fn's summary.
func (c *components) enter(fn *types.Func) {
	if c.index == nil {
		c.index, c.low, c.self = map[*types.Func]int{}, map[*types.Func]int{}, map[*types.Func]bool{}
	}
	c.index[fn], c.low[fn] = c.next, c.next
	c.next++
	c.stack = append(c.stack, fn)
	c.path = append(c.path, fn)
}

// edgeTo records a call from the current function to fn, whose component
// is open.
func (c *components) edgeTo(fn *types.Func) {
	if len(c.path) == 0 {
		return
	}
	caller := c.path[len(c.path)-1]
	if caller == fn {
		c.self[fn] = true
	}
	c.low[caller] = min(c.low[caller], c.index[fn])
}

// leave ends fn's summary. When fn closes a component that is a cycle, it
// returns the component's functions, whose summaries must be settled.
func (c *components) leave(fn *types.Func) []*types.Func {
	c.path = c.path[:len(c.path)-1]
	if len(c.path) > 0 {
		caller := c.path[len(c.path)-1]
		c.low[caller] = min(c.low[caller], c.low[fn])
	}
	if c.low[fn] != c.index[fn] {
		return nil // fn is part of a component that an earlier function closes
	}
	i := slices.Index(c.stack, fn)
	members := slices.Clone(c.stack[i:])
	c.stack = c.stack[:i]
	self := c.self[fn]
	for _, m := range members {
		delete(c.index, m)
		delete(c.low, m)
		delete(c.self, m)
	}
	if len(members) == 1 && !self {
		return nil // not recursive: its summary is final
	}
	return members
}

// settle computes the summaries of a recursive component together: all
// start empty, then each is recomputed in source order from the others'
// current summaries until none changes. Effects only propagate along the
// cycle, so len(members)+1 rounds reach the fixpoint; the bound guards
// against a component whose coordination flips back and forth.
func (r *Result) settle(members []*types.Func) {
	r.sortBySource(members)
	for _, m := range members {
		r.summary[m] = &Summary{}
	}
	for range len(members) + 2 {
		changed := false
		for _, m := range members {
			s := r.summarize(m, r.decls[m])
			if !reflect.DeepEqual(s, r.summary[m]) {
				changed = true
			}
			r.summary[m] = s
		}
		if !changed {
			return
		}
	}
}

// sortBySource sorts functions of this package by file name and offset,
// an order that does not depend on how the driver parsed the files.
func (r *Result) sortBySource(fns []*types.Func) {
	slices.SortFunc(fns, func(a, b *types.Func) int {
		pa, pb := r.pass.Fset.Position(a.Pos()), r.pass.Fset.Position(b.Pos())
		if c := strings.Compare(pa.Filename, pb.Filename); c != 0 {
			return c
		}
		return pa.Offset - pb.Offset
	})
}
