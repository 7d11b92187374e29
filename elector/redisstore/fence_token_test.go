package redisstore

import (
	"errors"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/internal/testserver"
)

// TestSetTokenFenced: the high-water-mark fence refuses a term older than
// one that already wrote, passes the current term again, and works on a
// Redis other than the lease's.
func TestSetTokenFenced(t *testing.T) {
	lease := mustNew(t, newClient(t, testserver.Redis(t).Addr()), WithPrefix(testPrefix(t)))
	resource := newClient(t, testserver.NewRedis(t, testserver.RedisOptions{}).Addr()) // another server
	name, fence, key := "job", "res:{job}:fence", "res:{job}:state"

	t1, err := lease.Acquire(ctxT(t), name, "a", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := SetTokenFenced(ctxT(t), resource, fence, key, "by-a", t1.Token, 0); err != nil {
		t.Fatalf("first write: %v", err)
	}
	if err := lease.Release(ctxT(t), t1); err != nil {
		t.Fatal(err)
	}
	t2, err := lease.Acquire(ctxT(t), name, "b", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := SetTokenFenced(ctxT(t), resource, fence, key, "by-b", t2.Token, time.Minute); err != nil {
		t.Fatalf("new leader's write: %v", err)
	}
	if err := SetTokenFenced(ctxT(t), resource, fence, key, "by-b-again", t2.Token, 0); err != nil {
		t.Fatalf("same token again: %v", err)
	}
	err = SetTokenFenced(ctxT(t), resource, fence, key, "stale", t1.Token, 0)
	if !errors.Is(err, elector.ErrStaleToken) {
		t.Fatalf("stale leader's write: %v; want ErrStaleToken", err)
	}
	if err := SetTokenFenced(ctxT(t), resource, fence, key, "zero", 0, 0); !errors.Is(err, elector.ErrStaleToken) {
		t.Fatalf("token 0: %v; want ErrStaleToken", err)
	}
	if v, err := resource.Get(ctxT(t), key).Result(); err != nil || v != "by-b-again" {
		t.Fatalf("value %q (%v); want the last accepted write", v, err)
	}
	if ttl, err := resource.PTTL(ctxT(t), key).Result(); err != nil || ttl > 0 {
		t.Errorf("ttl %v (%v); want none, as the last write asked", ttl, err)
	}
}
