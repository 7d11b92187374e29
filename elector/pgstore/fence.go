package pgstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/gatesift/gatesift-vet/elector"
)

// FencePredicate returns a SQL boolean expression that is true only while
// the term whose lease name and token are the query parameters $nameArg and
// $tokenArg is the current live term. Add it to the WHERE of any write the
// leader makes in the lease table's database:
//
//	pred := store.FencePredicate(3, 4)
//	tag, err := pool.Exec(ctx,
//		"UPDATE accounts SET balance = $1 WHERE id = $2 AND "+pred,
//		balance, id, term.Name, int64(term.Token))
//	// tag.RowsAffected() == 0: the term has ended; the write did not happen.
//
// which expands to
//
//	EXISTS (SELECT 1 FROM gatesift_leases
//	        WHERE name = $3 AND token = $4 AND expires_at > now() FOR SHARE)
//
// FOR SHARE makes it a real fence and not just a check: the write's
// transaction holds a share lock on the lease row until it commits, so an
// Acquire that would end the term waits for the write, and a write that
// comes after the Acquire re-reads the row, sees the new token and does
// nothing. A paused leader that resumes after losing its lease can
// therefore not write, however long it was paused.
func (s *Store) FencePredicate(nameArg, tokenArg int) string {
	return "EXISTS (SELECT 1 FROM " + s.ident +
		" WHERE name = $" + strconv.Itoa(nameArg) +
		" AND token = $" + strconv.Itoa(tokenArg) +
		" AND expires_at > now() FOR SHARE)"
}

// InTerm runs fn in a transaction that first confirms term t is the current
// live term and share-locks its lease row, as FencePredicate does, so that
// everything fn writes commits before any successor's term begins. When the
// term has ended it returns an error wrapping elector.ErrLost without
// calling fn. fn's error rolls the transaction back and is returned.
//
// The tables fn writes must live in the lease table's database. A resource
// elsewhere fences with a token high-water mark instead (see the package
// documentation).
//
// Keep fn short: while it runs, every Acquire, Renew and Release of this
// lease waits for its row lock, the leader's own renewals included.
func (s *Store) InTerm(ctx context.Context, t elector.Term, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, "SELECT 1 WHERE "+s.FencePredicate(1, 2), t.Name, int64(t.Token)).Scan(&one)
		if err == pgx.ErrNoRows {
			return fmt.Errorf("pgstore: lease %q token %d: %w", t.Name, t.Token, elector.ErrLost)
		}
		if err != nil {
			return fmt.Errorf("pgstore: fence %q token %d: %w", t.Name, t.Token, err)
		}
		return fn(tx)
	})
}
