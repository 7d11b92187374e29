package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatesift/gatesift-vet/elector"
)

// DefaultPrefix starts every key and channel the store uses.
const DefaultPrefix = "gatesift:lease:"

// Store is an elector.Store and elector.Watcher on Redis. It is safe for
// concurrent use.
type Store struct {
	c      redis.UniversalClient
	prefix string
}

// Option configures a Store.
type Option func(*Store)

// WithPrefix sets the prefix of the store's keys and channels, so several
// applications can share one Redis.
func WithPrefix(p string) Option { return func(s *Store) { s.prefix = p } }

// New returns a store using client c (a *redis.Client, or a cluster
// client: a lease's keys share a hash tag, so they live in one slot).
//
// New fails unless the client is configured as the elector needs, for
// *redis.Client, *redis.ClusterClient and *redis.Ring (other
// implementations are not checked):
//
//   - retries off (MaxRetries: -1; for a cluster client also
//     MaxRedirects: -1): a script retried after a lost answer may act twice,
//     and the elector retries on its own schedule;
//   - ContextTimeoutEnabled: true: otherwise go-redis ignores context
//     deadlines and a request on a stalled connection blocks until
//     ReadTimeout (3 s by default), so a leader's cancelled work and its
//     next Acquire wait on it.
func New(c redis.UniversalClient, opts ...Option) (*Store, error) {
	if err := checkClient(c); err != nil {
		return nil, err
	}
	s := &Store{c: c, prefix: DefaultPrefix}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// checkClient reports the client settings New requires. It reads the
// options after go-redis normalised them: MaxRetries -1 becomes 0 and 0
// becomes the default 3.
func checkClient(c redis.UniversalClient) error {
	var retries, redirects int
	var ctxTimeouts bool
	switch cl := c.(type) {
	case *redis.Client:
		o := cl.Options()
		retries, ctxTimeouts = o.MaxRetries, o.ContextTimeoutEnabled
	case *redis.ClusterClient:
		o := cl.Options()
		retries, redirects, ctxTimeouts = max(o.MaxRetries, 0), o.MaxRedirects, o.ContextTimeoutEnabled
	case *redis.Ring:
		o := cl.Options()
		retries, ctxTimeouts = o.MaxRetries, o.ContextTimeoutEnabled
	case nil:
		return errors.New("redisstore: nil client")
	default:
		return nil
	}
	var errs []error
	if retries != 0 || redirects != 0 {
		errs = append(errs, fmt.Errorf("retries are on (MaxRetries %d, MaxRedirects %d after defaults): "+
			"set MaxRetries: -1 (and MaxRedirects: -1 on a cluster client), since a retried script may act twice", retries, redirects))
	}
	if !ctxTimeouts {
		errs = append(errs, errors.New("ContextTimeoutEnabled is false: go-redis would ignore context deadlines, "+
			"and a request on a stalled connection would outlive the leader's deadline; set ContextTimeoutEnabled: true"))
	}
	if len(errs) > 0 {
		return fmt.Errorf("redisstore: client not usable for leader election: %w", errors.Join(errs...))
	}
	return nil
}

// keys returns the lease key and term key of name. The braces are a Redis
// Cluster hash tag: both keys (and a fenced key, see SetFenced) must be in
// one slot for a script to touch them.
func (s *Store) keys(name string) []string {
	tag := s.prefix + "{" + name + "}"
	return []string{tag + ":lease", tag + ":term"}
}

// Channel is the pub/sub channel announcing changes of lease name.
func (s *Store) Channel(name string) string { return s.prefix + "{" + name + "}:changed" }

// value is what the lease key holds during term t.
func value(t elector.Term) string { return strconv.FormatUint(t.Token, 10) + " " + t.Holder }

// ttlMillis rounds ttl up to whole milliseconds, PX's resolution: a store
// may round up, never down.
func ttlMillis(ttl time.Duration) int64 {
	ms := int64(ttl / time.Millisecond)
	if ttl%time.Millisecond != 0 {
		ms++
	}
	return ms
}

// Acquire implements elector.Store.
func (s *Store) Acquire(ctx context.Context, name, holder string, ttl time.Duration) (elector.Term, error) {
	if err := checkArgs(name, holder, ttl); err != nil {
		return elector.Term{}, err
	}
	res, err := acquireScript.Run(ctx, s.c, s.keys(name), holder, ttlMillis(ttl), s.Channel(name)).Slice()
	if err != nil {
		return elector.Term{}, fmt.Errorf("redisstore: acquire %q: %w", name, err)
	}
	// A Lua false in a reply array arrives as nil.
	if len(res) == 0 || res[0] == nil {
		other := ""
		if len(res) > 1 {
			other, _ = res[1].(string)
		}
		return elector.Term{}, fmt.Errorf("redisstore: acquire %q: %w (by %q)", name, elector.ErrHeld, other)
	}
	token, err := parseToken(res[0])
	if err != nil {
		return elector.Term{}, fmt.Errorf("redisstore: acquire %q: %w", name, err)
	}
	return elector.Term{Name: name, Holder: holder, Token: token}, nil
}

// Renew implements elector.Store.
func (s *Store) Renew(ctx context.Context, t elector.Term, ttl time.Duration) error {
	if err := checkArgs(t.Name, t.Holder, ttl); err != nil {
		return err
	}
	n, err := renewScript.Run(ctx, s.c, s.keys(t.Name)[:1], value(t), ttlMillis(ttl)).Int()
	if err != nil {
		return fmt.Errorf("redisstore: renew %q token %d: %w", t.Name, t.Token, err)
	}
	if n != 1 {
		return fmt.Errorf("redisstore: renew %q token %d: %w", t.Name, t.Token, elector.ErrLost)
	}
	return nil
}

// Release implements elector.Store.
func (s *Store) Release(ctx context.Context, t elector.Term) error {
	n, err := releaseScript.Run(ctx, s.c, s.keys(t.Name)[:1], value(t), s.Channel(t.Name)).Int()
	if err != nil {
		return fmt.Errorf("redisstore: release %q token %d: %w", t.Name, t.Token, err)
	}
	if n != 1 {
		return fmt.Errorf("redisstore: release %q token %d: %w", t.Name, t.Token, elector.ErrLost)
	}
	return nil
}

// Read implements elector.Store. After a release or expiry it reports the
// most recent term with Held false.
func (s *Store) Read(ctx context.Context, name string) (elector.Record, error) {
	res, err := readScript.Run(ctx, s.c, s.keys(name)).Slice()
	if err != nil {
		return elector.Record{}, fmt.Errorf("redisstore: read %q: %w", name, err)
	}
	if len(res) != 3 {
		return elector.Record{}, fmt.Errorf("redisstore: read %q: unexpected reply %v", name, res)
	}
	var rec elector.Record
	if live, _ := res[0].(int64); live == 1 {
		cur, _ := res[1].(string)
		tok, holder, ok := strings.Cut(cur, " ")
		token, err := strconv.ParseUint(tok, 10, 64)
		if !ok || err != nil {
			return elector.Record{}, fmt.Errorf("redisstore: read %q: malformed lease value %q", name, cur)
		}
		pttl, _ := res[2].(int64)
		// A live key may report 0 ms left; it is still held for
		// a fraction of a millisecond.
		rec.Held, rec.Remaining = true, max(time.Duration(pttl)*time.Millisecond, time.Microsecond)
		rec.Term = elector.Term{Name: name, Holder: holder, Token: token}
		return rec, nil
	}
	if res[1] == nil {
		return rec, nil // never granted
	}
	token, err := parseToken(res[1])
	if err != nil {
		return elector.Record{}, fmt.Errorf("redisstore: read %q: %w", name, err)
	}
	holder, _ := res[2].(string)
	rec.Term = elector.Term{Name: name, Holder: holder, Token: token}
	return rec, nil
}

func parseToken(v any) (uint64, error) {
	s, ok := v.(string)
	if !ok {
		return 0, fmt.Errorf("token %v is not a string", v)
	}
	t, err := strconv.ParseUint(s, 10, 64)
	if err != nil || t == 0 {
		return 0, fmt.Errorf("malformed token %q", s)
	}
	return t, nil
}

func checkArgs(name, holder string, ttl time.Duration) error {
	switch {
	case name == "":
		return errors.New("redisstore: empty lease name")
	case holder == "":
		return errors.New("redisstore: empty holder")
	case ttl <= 0:
		return fmt.Errorf("redisstore: ttl %v must be positive", ttl)
	}
	return nil
}

var (
	_ elector.Store   = (*Store)(nil)
	_ elector.Watcher = (*Store)(nil)
)
