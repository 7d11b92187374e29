package pgstore

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gatesift/gatesift-vet/elector"
)

// DefaultTable is the lease table's name unless WithTable says otherwise.
const DefaultTable = "gatesift_leases"

// Store is an elector.Store and elector.Watcher on a PostgreSQL table. It
// is safe for concurrent use: every operation is one autocommit statement
// on whichever pooled connection is free, with no session state.
type Store struct {
	pool    *pgxpool.Pool
	table   string // as given, e.g. "leases" or "app.leases"
	ident   string // quoted for SQL
	channel string // NOTIFY channel: the table name as given

	acquire, renew, release, read string
}

// Option configures a Store.
type Option func(*Store) error

// identPattern accepts a plain, unquoted identifier or schema.identifier:
// no quoting games, and at most 63 bytes per part (PostgreSQL truncates
// longer names silently).
var identPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$`)

// WithTable sets the lease table, "name" or "schema.name" with letters,
// digits and underscores only. The same name is the NOTIFY channel.
func WithTable(name string) Option {
	return func(s *Store) error {
		if !identPattern.MatchString(name) {
			return fmt.Errorf("pgstore: table name %q is not a plain identifier or schema.identifier", name)
		}
		s.table = name
		return nil
	}
}

// New returns a store using pool. It does not touch the database; create the
// table with Migrate or with the SQL from Schema.
func New(pool *pgxpool.Pool, opts ...Option) (*Store, error) {
	s := &Store{pool: pool, table: DefaultTable}
	for _, o := range opts {
		if err := o(s); err != nil {
			return nil, err
		}
	}
	s.ident = quote(s.table)
	s.channel = s.table
	s.buildQueries()
	return s, nil
}

func quote(table string) string {
	return pgx.Identifier(strings.Split(table, ".")).Sanitize()
}

// Table is the lease table's name as configured.
func (s *Store) Table() string { return s.table }

// ttlMicros rounds ttl up to whole microseconds, the resolution of
// timestamptz: a store may round up, never down.
func ttlMicros(ttl time.Duration) int64 {
	us := int64(ttl / time.Microsecond)
	if ttl%time.Microsecond != 0 {
		us++
	}
	return us
}

func (s *Store) buildQueries() {
	t := s.ident
	// One statement, so it is atomic without an explicit transaction: the
	// upsert locks the row (or waits for a concurrent insert of the same
	// name) and re-checks the WHERE on the newest version. The token is
	// incremented in place and the row is never deleted, so tokens never
	// go back, also across restarts (the table is logged).
	s.acquire = `
WITH granted AS (
	INSERT INTO ` + t + ` AS l (name, holder, token, expires_at, granted_at)
	VALUES ($1, $2, 1, now() + $3::bigint * interval '1 microsecond', now())
	ON CONFLICT (name) DO UPDATE
		SET holder = excluded.holder, token = l.token + 1,
			expires_at = excluded.expires_at, granted_at = excluded.granted_at
		WHERE l.expires_at <= now() OR l.holder = excluded.holder
	RETURNING l.name, l.token
)
SELECT token, pg_notify($4, name) FROM granted`
	s.renew = `
UPDATE ` + t + ` SET expires_at = now() + $4::bigint * interval '1 microsecond'
WHERE name = $1 AND holder = $2 AND token = $3 AND expires_at > now()`
	// Release ends the term (expires_at = now) but keeps the row, and with
	// it the token counter. The notification is sent when the statement
	// commits, so a woken standby finds the lease free.
	s.release = `
WITH released AS (
	UPDATE ` + t + ` SET expires_at = now()
	WHERE name = $1 AND holder = $2 AND token = $3 AND expires_at > now()
	RETURNING name
)
SELECT pg_notify($4, name) FROM released`
	s.read = `
SELECT holder, token, expires_at > now(),
	greatest(0, (extract(epoch FROM expires_at - now()) * 1000000)::bigint)
FROM ` + t + ` WHERE name = $1`
}

// Acquire implements elector.Store.
func (s *Store) Acquire(ctx context.Context, name, holder string, ttl time.Duration) (elector.Term, error) {
	if err := checkArgs(name, holder, ttl); err != nil {
		return elector.Term{}, err
	}
	var token int64
	err := s.pool.QueryRow(ctx, s.acquire, name, holder, ttlMicros(ttl), s.channel).Scan(&token, nil)
	if errors.Is(err, pgx.ErrNoRows) {
		return elector.Term{}, fmt.Errorf("pgstore: acquire %q: %w", name, elector.ErrHeld)
	}
	if err != nil {
		return elector.Term{}, fmt.Errorf("pgstore: acquire %q: %w", name, err)
	}
	return elector.Term{Name: name, Holder: holder, Token: uint64(token)}, nil
}

// Renew implements elector.Store.
func (s *Store) Renew(ctx context.Context, t elector.Term, ttl time.Duration) error {
	if err := checkArgs(t.Name, t.Holder, ttl); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, s.renew, t.Name, t.Holder, int64(t.Token), ttlMicros(ttl))
	if err != nil {
		return fmt.Errorf("pgstore: renew %q token %d: %w", t.Name, t.Token, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("pgstore: renew %q token %d: %w", t.Name, t.Token, elector.ErrLost)
	}
	return nil
}

// Release implements elector.Store.
func (s *Store) Release(ctx context.Context, t elector.Term) error {
	rows, err := s.pool.Query(ctx, s.release, t.Name, t.Holder, int64(t.Token), s.channel)
	if err != nil {
		return fmt.Errorf("pgstore: release %q token %d: %w", t.Name, t.Token, err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("pgstore: release %q token %d: %w", t.Name, t.Token, err)
	}
	if n == 0 {
		return fmt.Errorf("pgstore: release %q token %d: %w", t.Name, t.Token, elector.ErrLost)
	}
	return nil
}

// Read implements elector.Store. After a release or expiry it reports the
// most recent term with Held false.
func (s *Store) Read(ctx context.Context, name string) (elector.Record, error) {
	var (
		rec       elector.Record
		token, us int64
	)
	err := s.pool.QueryRow(ctx, s.read, name).Scan(&rec.Holder, &token, &rec.Held, &us)
	if errors.Is(err, pgx.ErrNoRows) {
		// No row: the lease was never granted.
		return elector.Record{}, nil
	}
	if err != nil {
		return elector.Record{}, fmt.Errorf("pgstore: read %q: %w", name, err)
	}
	rec.Name, rec.Token = name, uint64(token)
	if rec.Held {
		rec.Remaining = time.Duration(us) * time.Microsecond
	}
	return rec, nil
}

func checkArgs(name, holder string, ttl time.Duration) error {
	switch {
	case name == "":
		return errors.New("pgstore: empty lease name")
	case holder == "":
		return errors.New("pgstore: empty holder")
	case ttl <= 0:
		return fmt.Errorf("pgstore: ttl %v must be positive", ttl)
	}
	return nil
}

var (
	_ elector.Store   = (*Store)(nil)
	_ elector.Watcher = (*Store)(nil)
)
