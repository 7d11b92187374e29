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

// LE4001's gated work joins three packages that do not import one another
// (the provider closes Server.Elected after the manager's Elected(), the
// runner waits on it, prun only logs the manager's error): the package facts
// of the first two edges and the method fact of the runner must reach main,
// under go vet as in the standalone driver, and main reports once.
func TestGatedWorkFactsJoinInMain(t *testing.T) {
	t.Parallel()
	dir := writeModule(t, map[string]string{
		"crstub/go.mod": "module sigs.k8s.io/controller-runtime\n\ngo 1.26\n",
		"crstub/pkg/manager/manager.go": `package manager

import "context"

// Manager is the part of controller-runtime's Manager the test uses.
type Manager interface {
	Start(ctx context.Context) error
	Elected() <-chan struct{}
}

// New returns a manager.
func New() (Manager, error) { return nil, nil }
`,
		"config/config.go": `package config

// Server is shared configuration.
type Server struct{ Elected chan struct{} }
`,
		"provider/provider.go": `package provider

import (
	"context"

	"example.com/x/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// Provider runs the manager.
type Provider struct{ mgr manager.Manager }

// New closes cfg.Elected once the manager is elected.
func New(cfg *config.Server) *Provider {
	mgr, _ := manager.New()
	go func() {
		<-mgr.Elected()
		close(cfg.Elected)
	}()
	return &Provider{mgr: mgr}
}

// Start returns the manager's error.
func (p *Provider) Start(ctx context.Context) error { return p.mgr.Start(ctx) }
`,
		"runner/runner.go": `package runner

import (
	"context"

	"example.com/x/config"
)

type applier struct{}

func (applier) Run(ctx context.Context) { <-ctx.Done() }

// Runner applies once elected.
type Runner struct {
	config.Server
	apply applier
}

// New returns a runner.
func New(cfg *config.Server) *Runner { return &Runner{Server: *cfg} }

// Start applies on its own ctx once Elected closes.
func (r *Runner) Start(ctx context.Context) error {
	go func() {
		<-r.Elected
		r.apply.Run(ctx)
	}()
	return nil
}
`,
		"prun/prun.go": `package prun

import (
	"context"
	"log"

	"example.com/x/config"
	"example.com/x/provider"
)

// Run starts the provider and only logs its error.
func Run(ctx context.Context, cfg *config.Server) {
	p := provider.New(cfg)
	go func() {
		if err := p.Start(ctx); err != nil {
			log.Print(err)
		}
	}()
}
`,
		"main.go": `package main

import (
	"context"

	"example.com/x/config"
	"example.com/x/prun"
	"example.com/x/runner"
)

func main() {
	ctx := context.Background()
	cfg := &config.Server{Elected: make(chan struct{})}
	prun.Run(ctx, cfg)
	_ = runner.New(cfg).Start(ctx)
	<-ctx.Done()
}
`,
	})
	writeFile(t, dir+"/go.mod", "module example.com/x\n\ngo 1.26\n\nrequire sigs.k8s.io/controller-runtime v0.0.0\n\nreplace sigs.k8s.io/controller-runtime => ./crstub\n")
	r := vet(t, dir, "./...")
	if r.code != exitFindings || len(findingLines(r.stdout, "LE4001")) != 1 || !strings.Contains(r.stdout, "main.go:15:6") {
		t.Fatalf("want one LE4001 at main.go:15:6, joining provider, runner and prun; %v", r)
	}
	g := goVet(t, dir, "./...")
	if got, want := strings.Join(diagnosticLines(r.stdout), "\n"), strings.Join(diagnosticLines(g.stderr), "\n"); got != want {
		t.Errorf("standalone and go vet disagree:\nstandalone:\n%s\ngo vet:\n%s", got, want)
	}
}
