// Package callbacks: work kept in a struct field for later and called from
// a ticker loop.
package callbacks

import (
	"context"
	"database/sql"
	"log"
	"time"
)

type store struct{ db *sql.DB }

func (s *store) charge(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO charges (account_id) SELECT id FROM accounts WHERE due`)
	return err
}

// Positive: the field holds a method value, stored in a literal.
type notifier struct {
	notify func(ctx context.Context) error
}

func (n *notifier) run(ctx context.Context) {
	t := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it inserts into table charges \(via callbacks.\(\*store\).charge\)`
	for range t.C {
		n.notify(ctx)
	}
}

func Start(ctx context.Context, db *sql.DB) {
	s := &store{db: db}
	n := &notifier{notify: s.charge}
	go n.run(ctx)
}

// Positive: the field is assigned what a factory of the package returns.
type digester struct {
	send func(ctx context.Context) error
}

func sendDigest(db *sql.DB) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		_, err := db.ExecContext(ctx, `INSERT INTO digests (sent_at) VALUES (now())`)
		return err
	}
}

func (d *digester) loop(ctx context.Context) {
	for { // want `for loop paced by time.Sleep runs loop body on every replica every 1h0m0s: it inserts into table digests \(via the callback in field send\)`
		d.send(ctx)
		time.Sleep(time.Hour)
	}
}

func StartDigest(ctx context.Context, db *sql.DB) {
	d := &digester{}
	d.send = sendDigest(db)
	go d.loop(ctx)
}

// Negative: one of the values stored has no shared effect, so which one
// runs decides (twin: notifier, whose only value inserts).
type mixed struct {
	hook func(ctx context.Context) error
}

func (m *mixed) run(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	for range t.C {
		m.hook(ctx)
	}
}

func StartMixed(ctx context.Context, db *sql.DB, dryRun bool) {
	s := &store{db: db}
	m := &mixed{hook: s.charge}
	if dryRun {
		m.hook = func(ctx context.Context) error { log.Print("dry run"); return nil }
	}
	go m.run(ctx)
}

// Negative: a value stored from a parameter is not visible here (twin:
// notifier).
type pluggable struct {
	hook func(ctx context.Context) error
}

func (p *pluggable) run(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	for range t.C {
		p.hook(ctx)
	}
}

func startPluggable(ctx context.Context, db *sql.DB, hook func(ctx context.Context) error) {
	s := &store{db: db}
	p := &pluggable{hook: s.charge}
	if hook != nil {
		p.hook = hook
	}
	go p.run(ctx)
}

// Negative: an exported field may be set by any importer (twin: notifier).
type Exported struct {
	Hook func(ctx context.Context) error
}

func (e *Exported) run(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	for range t.C {
		e.Hook(ctx)
	}
}

func StartExported(ctx context.Context, db *sql.DB) {
	s := &store{db: db}
	e := &Exported{Hook: s.charge}
	go e.run(ctx)
}
