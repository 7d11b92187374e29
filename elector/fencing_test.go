package elector_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/gatesift/gatesift-vet/elector"
)

func ExampleFenceSQL() {
	// In the work function: every write carries lease.Token().
	var token uint64 = 42 // lease.Token()
	cond, set, arg := elector.FenceSQL("fence_token", 2, token)
	query := "UPDATE jobs SET state = $1, " + set + " WHERE id = $3 AND " + cond
	fmt.Println(query)
	// Zero rows affected means a newer leader has written: stop working.
	fmt.Println("args: state,", arg, ", id")

	// Output:
	// UPDATE jobs SET state = $1, fence_token = $2 WHERE id = $3 AND fence_token <= $2
	// args: state, 42 , id
}

func ExampleFence() {
	var f elector.Fence
	var balance int
	write := func(token uint64, amount int) error {
		return f.Do(token, func() error { balance += amount; return nil })
	}
	fmt.Println(write(7, 10)) // leader with token 7
	fmt.Println(write(8, 5))  // a new leader took over
	err := write(7, 100)      // the old leader wakes from a pause
	fmt.Println(errors.Is(err, elector.ErrStaleToken), balance)
	// Output:
	// <nil>
	// <nil>
	// true 15
}

func TestCheckToken(t *testing.T) {
	tests := []struct {
		latest, token uint64
		ok            bool
	}{
		{0, 1, true}, {5, 5, true}, {5, 6, true}, {5, 4, false}, {0, 0, false}, {3, 0, false},
	}
	for _, tc := range tests {
		err := elector.CheckToken(tc.latest, tc.token)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, elector.ErrStaleToken)) {
			t.Errorf("CheckToken(%d, %d) = %v; want ok=%v", tc.latest, tc.token, err, tc.ok)
		}
	}
}

func TestFenceConcurrentWritersKeepOrder(t *testing.T) {
	var f elector.Fence
	var mu sync.Mutex
	var applied []uint64
	var wg sync.WaitGroup
	for tok := uint64(1); tok <= 50; tok++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = f.Do(tok, func() error {
				mu.Lock()
				applied = append(applied, tok)
				mu.Unlock()
				return nil
			})
		}()
	}
	wg.Wait()
	for i := 1; i < len(applied); i++ {
		if applied[i] < applied[i-1] {
			t.Fatalf("fence applied token %d after %d: %v", applied[i], applied[i-1], applied)
		}
	}
	if f.Latest() != 50 || applied[len(applied)-1] != 50 {
		t.Fatalf("latest %d, applied %v; token 50 must win", f.Latest(), applied)
	}
}

func TestFenceHandler(t *testing.T) {
	var f elector.Fence
	hits := 0
	h := elector.FenceHandler(&f, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	do := func(token string) int {
		req := httptest.NewRequest(http.MethodPost, "/write", nil)
		if token != "" {
			req.Header.Set(elector.TokenHeader, token)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	elector.SetTokenHeader(req.Header, 9)
	if got := req.Header.Get("X-Fencing-Token"); got != "9" {
		t.Fatalf("SetTokenHeader wrote %q", got)
	}
	for _, tc := range []struct {
		token string
		code  int
	}{
		{"", 400}, {"abc", 400}, {"0", 400}, {"9", 200}, {"9", 200}, {"10", 200}, {"9", 409},
	} {
		if got := do(tc.token); got != tc.code {
			t.Errorf("token %q: status %d; want %d", tc.token, got, tc.code)
		}
	}
	if hits != 3 {
		t.Errorf("handler ran %d times; want 3 (the admitted writes)", hits)
	}
}

func TestFenceAdmit(t *testing.T) {
	var f elector.Fence
	for _, step := range []struct {
		token uint64
		ok    bool
	}{{3, true}, {3, true}, {2, false}, {5, true}, {4, false}, {0, false}} {
		if err := f.Admit(step.token); (err == nil) != step.ok {
			t.Errorf("Admit(%d) = %v; want ok=%v", step.token, err, step.ok)
		}
	}
	if f.Latest() != 5 {
		t.Errorf("Latest = %d; want 5", f.Latest())
	}
}
