package main

import (
	"strings"
	"testing"
)

// A method's facts reach a package that does not import the method's
// package: main gets a *store.Store from wire and calls its Charge, so the
// effect fact of (*store.Store).Charge must cross two import edges (as
// checker and unitchecker both let method facts do). The standalone
// driver's fact lookup must find it, and agree with go vet.
func TestMethodFactCrossesTwoImports(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, map[string]string{
		"store/store.go": `package store

import (
	"context"
	"database/sql"
)

// Store writes charges.
type Store struct{ DB *sql.DB }

// Charge records one charge.
func (s *Store) Charge(ctx context.Context) {
	s.DB.ExecContext(ctx, "INSERT INTO charges (amount) VALUES (1)")
}
`,
		"wire/wire.go": `package wire

import "example.com/x/store"

// New returns the store.
func New() *store.Store { return &store.Store{} }
`,
		"main.go": `package main

import (
	"context"
	"time"

	"example.com/x/wire"
)

func loop(ctx context.Context) {
	s := wire.New()
	for range time.Tick(time.Minute) {
		s.Charge(ctx)
	}
}

func main() {}
`,
	})
	r := vet(t, dir, "./...")
	if r.code != exitFindings || len(findingLines(r.stdout, "LE1001")) != 1 || !strings.Contains(r.stdout, "main.go:12:12") {
		t.Fatalf("want one LE1001 at main.go:12:12, through (*store.Store).Charge; %v", r)
	}
	g := goVet(t, dir, "./...")
	if got, want := strings.Join(diagnosticLines(r.stdout), "\n"), strings.Join(diagnosticLines(g.stderr), "\n"); got != want {
		t.Errorf("standalone and go vet disagree:\nstandalone:\n%s\ngo vet:\n%s", got, want)
	}
}
