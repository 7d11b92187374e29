package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

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

// SetTokenFenced sets key to val (with expiry ttl, 0 for none) unless a
// write with a newer token reached the resource first: fenceKey holds the
// highest token written so far, and a write whose token is lower is refused
// with an error wrapping elector.ErrStaleToken, changing nothing. Equal
// tokens pass (the current leader writing again). Check and write are one
// script, so no newer leader's write can interleave.
//
// Unlike SetFenced, this is a high-water mark kept at the resource, the
// fence that holds whatever happened to the lease: c may be any Redis (the
// resource's own, not the lease's), and a stale leader is refused even
// after a failover that lost the lease key, as long as the resource's
// fenceKey survived. Use one fenceKey for all keys of one resource; on Redis
// Cluster, key and fenceKey must share a hash tag. Tokens are compared as
// Lua numbers, exact below 2^53 (see the package documentation).
func SetTokenFenced(ctx context.Context, c redis.UniversalClient, fenceKey, key, val string, token uint64, ttl time.Duration) error {
	if token == 0 {
		return fmt.Errorf("redisstore: token-fenced set %q: %w: token 0 was never granted", key, elector.ErrStaleToken)
	}
	r, err := tokenFencedSetScript.Run(ctx, c, []string{fenceKey, key}, strconv.FormatUint(token, 10), val, ttlMillis(ttl)).Slice()
	if err != nil {
		return fmt.Errorf("redisstore: token-fenced set %q: %w", key, err)
	}
	if len(r) == 2 && r[0] == int64(0) {
		return fmt.Errorf("redisstore: token-fenced set %q refused: %w: %d, resource has seen %v", key, elector.ErrStaleToken, token, r[1])
	}
	return nil
}
