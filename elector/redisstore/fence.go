package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
)

// SetFenced sets key to val (with expiry ttl, 0 for none) only while term
// t is the current live term, atomically in one script: a leader that was
// paused past its lease cannot overwrite its successor's data. When the
// term has ended it writes nothing and returns an error wrapping
// elector.ErrLost.
//
// The fence is only as good as the lease key: it holds within one Redis
// server, not across a failover that lost the lease (see the package
// documentation). On Redis Cluster, key must carry the lease's hash tag,
// FenceTag(t.Name), to be in the lease's slot.
func (s *Store) SetFenced(ctx context.Context, t elector.Term, key, val string, ttl time.Duration) error {
	keys := []string{s.keys(t.Name)[0], key}
	n, err := fencedSetScript.Run(ctx, s.c, keys, value(t), val, ttlMillis(ttl)).Int()
	if err != nil {
		return fmt.Errorf("redisstore: fenced set %q: %w", key, err)
	}
	if n != 1 {
		return fmt.Errorf("redisstore: fenced set %q refused, token %d is stale: %w", key, t.Token, elector.ErrLost)
	}
	return nil
}

// FenceTag is the Redis Cluster hash tag of lease name's keys.
func (s *Store) FenceTag(name string) string { return "{" + name + "}" }

// PushFenced appends val to the list at key only while term t is the
// current live term, for queues and logs written on the leader's behalf.
// It refuses like SetFenced.
func (s *Store) PushFenced(ctx context.Context, t elector.Term, key, val string) error {
	keys := []string{s.keys(t.Name)[0], key}
	n, err := fencedPushScript.Run(ctx, s.c, keys, value(t), val).Int()
	if err != nil {
		return fmt.Errorf("redisstore: fenced push %q: %w", key, err)
	}
	if n == 0 {
		return fmt.Errorf("redisstore: fenced push %q refused, token %d is stale: %w", key, t.Token, elector.ErrLost)
	}
	return nil
}
