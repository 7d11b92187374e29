package etcdstore

import (
	"context"
	"fmt"

	"github.com/gatesift/gatesift-vet/elector"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Fence returns the comparisons that hold only while term t is the current
// live term of its lease: the lease key exists, carries t's token as its
// create revision and t's holder as its value. Put them in the If of any
// transaction that writes on the leader's behalf, and a paused or
// partitioned former leader can no longer write once its term has ended:
//
//	c.Txn(ctx).If(store.Fence(term)...).Then(clientv3.OpPut(k, v)).Commit()
//
// This is stronger than a "token >= highest seen" check at the resource,
// because it also rejects the write of a term that merely expired without a
// successor. A zero term gets a comparison that never holds.
func (s *Store) Fence(t elector.Term) []clientv3.Cmp {
	key := s.Key(t.Name)
	if t.Token == 0 {
		// CreateRevision(key) == 0 would hold for an absent key.
		return []clientv3.Cmp{clientv3.Compare(clientv3.CreateRevision(key), "<", 0)}
	}
	return []clientv3.Cmp{
		clientv3.Compare(clientv3.CreateRevision(key), "=", int64(t.Token)),
		clientv3.Compare(clientv3.Value(key), "=", t.Holder),
	}
}

// PutFenced writes key=val only if term t is still current, in one etcd
// transaction, and returns the revision of the write. When the term has
// ended it writes nothing and returns an error wrapping elector.ErrLost.
func (s *Store) PutFenced(ctx context.Context, t elector.Term, key, val string, opts ...clientv3.OpOption) (int64, error) {
	resp, err := s.c.Txn(ctx).If(s.Fence(t)...).Then(clientv3.OpPut(key, val, opts...)).Commit()
	if err != nil {
		return 0, err
	}
	if !resp.Succeeded {
		return 0, fmt.Errorf("%w: fenced write of %q refused, token %d is stale", elector.ErrLost, key, t.Token)
	}
	return resp.Header.Revision, nil
}
