package main

import (
	"slices"
	"testing"
)

// admitted returns the weights of the waiters dispatch let through, in
// the order they were queued.
func admitted(ws []*admissionWaiter) []int64 {
	var out []int64
	for _, w := range ws {
		select {
		case <-w.ready:
			out = append(out, w.weight)
		default:
		}
	}
	return out
}

func queue(a *admission, weights ...int64) []*admissionWaiter {
	var ws []*admissionWaiter
	for _, n := range weights {
		w := &admissionWaiter{weight: n, ready: make(chan struct{})}
		a.waiting = append(a.waiting, w)
		ws = append(ws, w)
	}
	a.dispatch()
	return ws
}

const mb = largePackage

// Two large packages never run together; a small one runs beside a large.
func TestAdmissionOneLargeAtATime(t *testing.T) {
	a := newAdmission(2)
	ws := queue(a, 3*mb, 2*mb, 10)
	if got := admitted(ws); !slices.Equal(got, []int64{3 * mb, 10}) {
		t.Fatalf("admitted %v, want [3 MB, 10]: the largest first, a small one beside it", got)
	}
	a.release(10)
	if got := admitted(ws); !slices.Equal(got, []int64{3 * mb, 10}) {
		t.Fatalf("a second large package ran beside the first: admitted %v", got)
	}
	a.release(3 * mb)
	if got := admitted(ws); !slices.Equal(got, []int64{3 * mb, 2 * mb, 10}) {
		t.Fatalf("admitted %v, want all", got)
	}
}

// Of the packages that may run, the largest goes first.
func TestAdmissionLargestFirst(t *testing.T) {
	a := newAdmission(1)
	ws := queue(a, 10, 30, 20)
	if got := admitted(ws); !slices.Equal(got, []int64{30}) {
		t.Fatalf("admitted %v, want [30]", got)
	}
	a.release(30)
	if got := admitted(ws); !slices.Equal(got, []int64{30, 20}) {
		t.Fatalf("admitted %v, want [30 20]", got)
	}
}

func TestAdmissionSlots(t *testing.T) {
	a := newAdmission(2)
	ws := queue(a, 1, 1, 1)
	if got := admitted(ws); len(got) != 2 {
		t.Fatalf("admitted %v, want 2 of 3 (GOMAXPROCS slots)", got)
	}
}
