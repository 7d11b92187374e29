// Package rmw: jobs that read a stored value, move it on and store it back
// (read-modify-write) through a store, and the guards that make it safe.
package rmw

import (
	"context"
	"database/sql"
	"errors"
	"math/big"
	"time"

	"le1001/rmw/kv"
)

// Serial is kept by a store whose implementation lives in a package this
// one does not import.
type Serial struct {
	Number int64
	Blob   []byte
}

type SerialStore interface {
	LoadSerial() (*Serial, error)
	SaveSerial(*Serial) error
}

type Issuer struct{ store SerialStore }

// Positive: interface store, big.Int counter (number = old + 1).
func (is *Issuer) reissue() error {
	cur, err := is.store.LoadSerial()
	if err != nil {
		return err
	}
	var n big.Int
	if cur != nil {
		n.SetInt64(cur.Number + 1)
	}
	next := Serial{Number: n.Int64(), Blob: []byte("signed")}
	return is.store.SaveSerial(&next)
}

func (is *Issuer) Run() {
	t := time.NewTicker(time.Hour) // want `time.NewTicker runs loop body on every replica every 1h0m0s: it reads a value through is.store.LoadSerial \(rmw.go:31\) and writes it back incremented through is.store.SaveSerial \(rmw.go:40\), so concurrent replicas lose updates or repeat values \(via rmw.\(\*Issuer\).reissue\); guarded by nothing`
	for range t.C {
		is.reissue()
	}
}

// Positive: big.Int Add on a value read through the store, the store
// reached through a type assertion of a field.
type Authority struct{ db any }

func (a *Authority) bumpBig() error {
	s, ok := a.db.(SerialStore)
	if !ok {
		return errors.New("no serials")
	}
	cur, err := s.LoadSerial()
	if err != nil {
		return err
	}
	var n big.Int
	n.Add(big.NewInt(cur.Number), big.NewInt(1))
	return s.SaveSerial(&Serial{Number: n.Int64()})
}

func (a *Authority) Run() {
	for range time.Tick(time.Hour) { // want `reads a value through s.LoadSerial \(rmw.go:\d+\) and writes it back incremented through s.SaveSerial`
		a.bumpBig()
	}
}

// A concrete store whose writes the analysis reads: set is an UPDATE to a
// value (idempotent alone), made from a value get read.
type counterDB struct{ db *sql.DB }

func (c *counterDB) get(ctx context.Context) (int64, error) {
	var n int64
	err := c.db.QueryRowContext(ctx, `SELECT n FROM counters WHERE name = 'digest'`).Scan(&n)
	return n, err
}

func (c *counterDB) set(ctx context.Context, n int64) error {
	_, err := c.db.ExecContext(ctx, `UPDATE counters SET n = $1 WHERE name = 'digest'`, n)
	return err
}

// Positive: concrete store.
func bumpDigest(ctx context.Context, c *counterDB) error {
	n, err := c.get(ctx)
	if err != nil {
		return err
	}
	return c.set(ctx, n+1)
}

func RunDigest(ctx context.Context, c *counterDB) {
	for range time.Tick(time.Minute) { // want `reads a value through c.get \(rmw.go:\d+\) and writes it back incremented through c.set \(rmw.go:\d+\), so concurrent replicas lose updates or repeat values \(via rmw.bumpDigest\)`
		bumpDigest(ctx, c)
	}
}

// Positive: a struct field incremented, on a concrete client of another
// package whose writes the analysis cannot see.
func useQuota(ctx context.Context, cl *kv.Client) error {
	q, err := cl.GetQuota(ctx, "quota:exports")
	if err != nil {
		return err
	}
	q.Used++
	return cl.PutQuota(ctx, "quota:exports", q)
}

func RunQuota(ctx context.Context, cl *kv.Client) {
	for range time.Tick(time.Minute) { // want `reads a value through cl.GetQuota \(rmw.go:\d+\) and writes it back incremented through cl.PutQuota`
		useQuota(ctx, cl)
	}
}

// Positive: append to a slice read from the store, in the loop body.
type History interface {
	Entries(ctx context.Context) ([]string, error)
	SetEntries(ctx context.Context, e []string) error
}

func RunHistory(ctx context.Context, h History) {
	for range time.Tick(time.Minute) { // want `reads a value through h.Entries \(rmw.go:\d+\) and writes it back incremented through h.SetEntries`
		e, err := h.Entries(ctx)
		if err != nil {
			continue
		}
		h.SetEntries(ctx, append(e, time.Now().String()))
	}
}
