package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/connectivity"
)

// MinTTL is the shortest lease etcd grants with its default timing
// (--heartbeat-interval 100ms, --election-timeout 1000ms): the server raises
// any shorter request to ceil(1.5 * election timeout) = 2 s. The store asks for
// at least this much itself so the TTL it caches matches the server's.
const MinTTL = 2 * time.Second

// DefaultPrefix is where the store keeps its keys unless told otherwise.
const DefaultPrefix = "/gatesift/elector/"

// Store is an elector.Store and elector.Watcher backed by etcd. It is safe
// for concurrent use. The caller owns the client and closes it.
type Store struct {
	c      *clientv3.Client
	prefix string

	// leases remembers the lease of each term this Store granted, so Renew
	// need not look it up; a term from elsewhere is found through its key.
	mu     sync.Mutex
	leases map[elector.Term]leaseInfo
}

type leaseInfo struct {
	id  clientv3.LeaseID
	ttl int64 // seconds, as granted by the server
}

// Option configures a Store.
type Option func(*Store)

// WithPrefix puts the store's keys under prefix instead of DefaultPrefix, so
// independent groups of candidates can share one etcd cluster.
func WithPrefix(prefix string) Option {
	return func(s *Store) { s.prefix = prefix }
}

// New returns a store that uses c.
func New(c *clientv3.Client, opts ...Option) *Store {
	s := &Store{c: c, prefix: DefaultPrefix, leases: map[elector.Term]leaseInfo{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

var (
	_ elector.Store   = (*Store)(nil)
	_ elector.Watcher = (*Store)(nil)
)

// Key is the etcd key that exists, attached to the holder's lease, exactly
// while a term of name is live. Its CreateRevision is the term's token.
func (s *Store) Key(name string) string { return s.prefix + "lease/" + name }

// lastKey records the most recent term even after the lease key is gone, so
// Read can report it; its ModRevision equals that term's token because both
// keys are written by the same transaction.
func (s *Store) lastKey(name string) string { return s.prefix + "last/" + name }

// ttlSeconds rounds ttl up to whole seconds and up to MinTTL: the contract
// lets a store round up, never down, since the candidate's deadline is
// computed from the ttl it asked for.
func ttlSeconds(ttl time.Duration) (int64, error) {
	if ttl <= 0 {
		return 0, fmt.Errorf("etcdstore: ttl %v must be positive", ttl)
	}
	if ttl < MinTTL {
		ttl = MinTTL
	}
	return int64((ttl + time.Second - 1) / time.Second), nil
}

// Acquire grants name to holder when the key is absent (free, or expired and
// deleted by etcd with its lease) or held by the same holder (a reclaim after
// a restart, which always starts a new term with a new token).
func (s *Store) Acquire(ctx context.Context, name, holder string, ttl time.Duration) (elector.Term, error) {
	secs, err := ttlSeconds(ttl)
	if err != nil {
		return elector.Term{}, err
	}
	key := s.Key(name)
	// Look before granting: a standby polling a held lease then costs one
	// read, not a grant, a failed transaction and a revoke.
	cur, err := s.c.Get(ctx, key)
	if err != nil {
		return elector.Term{}, err
	}
	if len(cur.Kvs) > 0 {
		kv := cur.Kvs[0]
		if string(kv.Value) != holder {
			return elector.Term{}, fmt.Errorf("%w: %q holds %q with token %d", elector.ErrHeld, kv.Value, name, kv.CreateRevision)
		}
		if err := s.dropOwn(ctx, name, holder, kv.CreateRevision, clientv3.LeaseID(kv.Lease)); err != nil {
			return elector.Term{}, err
		}
	}

	lease, err := s.grant(ctx, secs)
	if err != nil {
		return elector.Term{}, err
	}
	resp, err := s.c.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(
			clientv3.OpPut(key, holder, clientv3.WithLease(lease.ID)),
			clientv3.OpPut(s.lastKey(name), holder),
		).
		Else(clientv3.OpGet(key)).
		Commit()
	if err != nil {
		// The outcome is unknown; the lease is harmless either way: if the
		// put happened, the key lives until the lease expires and the
		// caller, having seen an error, will not renew it.
		return elector.Term{}, err
	}
	if !resp.Succeeded {
		s.revokeQuietly(lease.ID)
		// Someone else got in between our read and our write.
		if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) > 0 {
			return elector.Term{}, fmt.Errorf("%w: %q holds %q with token %d", elector.ErrHeld, kvs[0].Value, name, kvs[0].CreateRevision)
		}
		return elector.Term{}, fmt.Errorf("%w: %q changed hands during acquire", elector.ErrHeld, name)
	}
	t := elector.Term{Name: name, Holder: holder, Token: uint64(resp.Header.Revision)}
	s.mu.Lock()
	// Every earlier term of name has ended now; dropping them keeps the
	// map from growing with terms that ended without a Renew or Release
	// telling us. (A live term of another candidate sharing this Store
	// cannot exist: we just created the key.)
	for old := range s.leases {
		if old.Name == name {
			delete(s.leases, old)
		}
	}
	s.leases[t] = leaseInfo{id: lease.ID, ttl: lease.TTL}
	s.mu.Unlock()
	return t, nil
}

// grant asks etcd for a lease of secs seconds. etcd raises a TTL below its
// minimum and never lowers one, but the candidate's safety rests on that, so
// a shorter grant is refused rather than trusted.
func (s *Store) grant(ctx context.Context, secs int64) (*clientv3.LeaseGrantResponse, error) {
	lease, err := s.c.Grant(ctx, secs)
	if err != nil {
		return nil, err
	}
	if lease.TTL < secs {
		s.revokeQuietly(lease.ID)
		return nil, fmt.Errorf("etcdstore: asked for a %d s lease, etcd granted %d s", secs, lease.TTL)
	}
	return lease, nil
}

// dropOwn ends a live term of the same holder before a reclaim. etcd refuses
// a delete and a put of the same key in one transaction, so the reclaim is a
// guarded delete followed by an ordinary create, which another candidate may
// win: the lease was free for a moment, which is honest.
func (s *Store) dropOwn(ctx context.Context, name, holder string, rev int64, lease clientv3.LeaseID) error {
	key := s.Key(name)
	resp, err := s.c.Txn(ctx).
		If(
			clientv3.Compare(clientv3.CreateRevision(key), "=", rev),
			clientv3.Compare(clientv3.Value(key), "=", holder),
		).
		Then(clientv3.OpDelete(key)).
		Commit()
	if err != nil {
		return err
	}
	if resp.Succeeded {
		s.forget(elector.Term{Name: name, Holder: holder, Token: uint64(rev)})
		s.revokeQuietly(lease)
	}
	return nil
}

// Renew extends term t's lease to its TTL from now. The keepalive comes
// first and the check second: if the key still carries t's create revision
// after the keepalive was applied, the lease that was extended is the one
// keeping t's key alive. Checking first would leave a window in which the
// key is deleted and a keepalive of its orphaned lease reports success.
func (s *Store) Renew(ctx context.Context, t elector.Term, ttl time.Duration) error {
	secs, err := ttlSeconds(ttl)
	if err != nil {
		return err
	}
	if t.Token == 0 {
		return fmt.Errorf("%w: zero term", elector.ErrLost)
	}
	li, err := s.leaseOf(ctx, t)
	if err != nil {
		return err
	}
	if secs > li.ttl {
		// An etcd lease's TTL is fixed at grant; a longer ttl needs a new
		// lease. Re-attaching the key keeps its create revision, the token.
		return s.moveLease(ctx, t, secs, li)
	}
	if _, err := s.c.KeepAliveOnce(ctx, li.id); err != nil {
		if errors.Is(err, rpctypes.ErrLeaseNotFound) {
			s.forget(t)
			return fmt.Errorf("%w: lease of token %d expired or revoked", elector.ErrLost, t.Token)
		}
		return err
	}
	return s.check(ctx, t, li.id)
}

// carries reports whether kvs, the result of a Get of t's key, show t as
// the live term: same token (create revision) and same holder.
func carries(kvs []*mvccpb.KeyValue, t elector.Term) bool {
	return len(kvs) > 0 && uint64(kvs[0].CreateRevision) == t.Token && string(kvs[0].Value) == t.Holder
}

// check confirms that t's key exists with t's token, attached to lease id.
func (s *Store) check(ctx context.Context, t elector.Term, id clientv3.LeaseID) error {
	resp, err := s.c.Get(ctx, s.Key(t.Name))
	if err != nil {
		return err
	}
	if !carries(resp.Kvs, t) || clientv3.LeaseID(resp.Kvs[0].Lease) != id {
		s.forget(t)
		return fmt.Errorf("%w: token %d is no longer current", elector.ErrLost, t.Token)
	}
	return nil
}

func (s *Store) moveLease(ctx context.Context, t elector.Term, secs int64, old leaseInfo) error {
	lease, err := s.grant(ctx, secs)
	if err != nil {
		return err
	}
	key := s.Key(t.Name)
	resp, err := s.c.Txn(ctx).
		If(append(s.Fence(t), clientv3.Compare(clientv3.LeaseValue(key), "=", old.id))...).
		Then(clientv3.OpPut(key, t.Holder, clientv3.WithLease(lease.ID))).
		Commit()
	if err != nil {
		return err
	}
	if !resp.Succeeded {
		s.revokeQuietly(lease.ID)
		s.forget(t)
		return fmt.Errorf("%w: token %d is no longer current", elector.ErrLost, t.Token)
	}
	s.mu.Lock()
	s.leases[t] = leaseInfo{id: lease.ID, ttl: lease.TTL}
	s.mu.Unlock()
	s.revokeQuietly(old.id)
	return nil
}

// leaseOf finds the lease of term t: remembered when this Store granted it,
// else read from the key, which must still carry t's token.
func (s *Store) leaseOf(ctx context.Context, t elector.Term) (leaseInfo, error) {
	s.mu.Lock()
	li, ok := s.leases[t]
	s.mu.Unlock()
	if ok {
		return li, nil
	}
	resp, err := s.c.Get(ctx, s.Key(t.Name))
	if err != nil {
		return leaseInfo{}, err
	}
	if !carries(resp.Kvs, t) {
		return leaseInfo{}, fmt.Errorf("%w: token %d is no longer current", elector.ErrLost, t.Token)
	}
	id := clientv3.LeaseID(resp.Kvs[0].Lease)
	ttl, err := s.c.TimeToLive(ctx, id)
	if err != nil {
		return leaseInfo{}, err
	}
	if ttl.TTL < 0 {
		return leaseInfo{}, fmt.Errorf("%w: lease of token %d expired", elector.ErrLost, t.Token)
	}
	li = leaseInfo{id: id, ttl: ttl.GrantedTTL}
	s.mu.Lock()
	s.leases[t] = li
	s.mu.Unlock()
	return li, nil
}

// Release deletes t's key if it still carries t's token, waking standbys
// through their watch, then revokes the lease. The delete, not the revoke,
// ends the term, so a revoke that fails changes nothing for the others.
func (s *Store) Release(ctx context.Context, t elector.Term) error {
	if t.Token == 0 {
		return fmt.Errorf("%w: zero term", elector.ErrLost)
	}
	key := s.Key(t.Name)
	resp, err := s.c.Txn(ctx).
		If(s.Fence(t)...).
		Then(clientv3.OpDelete(key, clientv3.WithPrevKV())).
		Commit()
	if err != nil {
		return err
	}
	s.forget(t)
	if !resp.Succeeded {
		return fmt.Errorf("%w: token %d is no longer current", elector.ErrLost, t.Token)
	}
	if prev := resp.Responses[0].GetResponseDeleteRange().PrevKvs; len(prev) > 0 && prev[0].Lease != 0 {
		s.revokeQuietly(clientv3.LeaseID(prev[0].Lease))
	}
	return nil
}

// Read reports the current term, or the most recent one when the lease is
// free. Remaining comes from the lease's TimeToLive, which etcd truncates to
// whole seconds; the store reports one second more, capped at the granted
// TTL, because etcd keeps the key until it has noticed the expiry and
// committed the revoke, which is never earlier than the truncated value.
func (s *Store) Read(ctx context.Context, name string) (elector.Record, error) {
	resp, err := s.c.Txn(ctx).Then(
		clientv3.OpGet(s.Key(name)),
		clientv3.OpGet(s.lastKey(name)),
	).Commit()
	if err != nil {
		return elector.Record{}, err
	}
	var rec elector.Record
	if kvs := resp.Responses[1].GetResponseRange().Kvs; len(kvs) > 0 {
		rec.Term = elector.Term{Name: name, Holder: string(kvs[0].Value), Token: uint64(kvs[0].ModRevision)}
	}
	kvs := resp.Responses[0].GetResponseRange().Kvs
	if len(kvs) == 0 {
		return rec, nil
	}
	kv := kvs[0]
	rec.Term = elector.Term{Name: name, Holder: string(kv.Value), Token: uint64(kv.CreateRevision)}
	ttl, err := s.c.TimeToLive(ctx, clientv3.LeaseID(kv.Lease))
	if err != nil {
		return elector.Record{}, err
	}
	if ttl.TTL < 0 {
		// Expired between the two calls; the key is gone or about to be.
		return rec, nil
	}
	rec.Held = true
	rec.Remaining = time.Duration(min(ttl.TTL+1, ttl.GrantedTTL)) * time.Second
	return rec, nil
}

// Watch wakes the caller after any change of name's key. It reads the
// current revision first and watches from the next one, so a change made
// after Watch returns is never missed even if the watch stream is set up
// later.
func (s *Store) Watch(ctx context.Context, name string) (<-chan struct{}, error) {
	key := s.Key(name)
	resp, err := s.c.Get(ctx, key, clientv3.WithCountOnly())
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(ctx)
	wch := s.c.Watch(clientv3.WithRequireLeader(wctx), key, clientv3.WithRev(resp.Header.Revision+1))
	go s.cancelOnDisconnect(wctx, cancel)
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		defer cancel()
		for wr := range wch {
			if wr.Err() != nil || wr.Canceled {
				return
			}
			if len(wr.Events) == 0 {
				continue // progress notification
			}
			select {
			case out <- struct{}{}:
			default: // a wakeup is already pending; hints coalesce
			}
		}
	}()
	return out, nil
}

// cancelOnDisconnect ends a watch when the client's connection fails.
// clientv3 would otherwise keep the watch channel open and retry forever
// while etcd is unreachable; the contract wants the channel closed, so the
// candidate knows to poll and to open a new watch later.
func (s *Store) cancelOnDisconnect(ctx context.Context, cancel context.CancelFunc) {
	conn := s.c.ActiveConnection()
	for {
		st := conn.GetState()
		if st == connectivity.TransientFailure || st == connectivity.Shutdown {
			cancel()
			return
		}
		if !conn.WaitForStateChange(ctx, st) {
			return // ctx ended
		}
	}
}

func (s *Store) forget(t elector.Term) {
	s.mu.Lock()
	delete(s.leases, t)
	s.mu.Unlock()
}

// revokeQuietly revokes a lease we no longer need. Failure is harmless: the
// lease then expires by itself within its TTL, holding no key that matters.
func (s *Store) revokeQuietly(id clientv3.LeaseID) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, _ = s.c.Revoke(ctx, id)
}
