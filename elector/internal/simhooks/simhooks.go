// Package simhooks lets the simulator build candidates with test-only
// behaviour (a deterministic random source, deliberately broken deadline
// logic) without widening the public API of package elector. Package elector
// fills these in at init.
package simhooks

// Unsafe describes deliberately broken variants the simulator must catch.
type Unsafe struct {
	// AnchorAtResponse measures the deadline from when the store's answer
	// arrived instead of when the request was sent (client-go's mistake).
	AnchorAtResponse bool
	// NoMargin drops DriftBound and StopBudget from the deadline.
	NoMargin bool
	// RenewWholeWindow gives each renew a timeout equal to the whole
	// remaining window and retries only after it answered, so one hung
	// request loses the term (the elector before issue 17).
	RenewWholeWindow bool
}

var (
	// WithUnsafe returns an elector.Option applying u.
	WithUnsafe func(u Unsafe) any
	// WithSeed returns an elector.Option seeding the candidate's jitter.
	WithSeed func(seed uint64) any
)
