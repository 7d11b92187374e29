package etcdstore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/internal/testserver"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Two groups of candidates under different prefixes share one etcd: the
// same lease name is held in each at once, and each group's keys stay under
// its prefix; within a group the name is still exclusive.
func TestWithPrefixSeparatesGroups(t *testing.T) {
	e := testserver.Etcd(t)
	prefix := "/" + testserver.UniqueName("prefix") + "/"
	name := testserver.UniqueName("job")
	c := newClient(t, e.Endpoint())
	grouped, grouped2 := New(c, WithPrefix(prefix+"a/")), New(newClient(t, e.Endpoint()), WithPrefix(prefix+"a/"))
	other := New(c, WithPrefix(prefix+"b/"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	if _, err := grouped.Acquire(ctx, name, "a1", 3*time.Second); err != nil {
		t.Fatalf("group a acquire: %v", err)
	}
	if _, err := other.Acquire(ctx, name, "b1", 3*time.Second); err != nil {
		t.Fatalf("group b acquire of the same name under another prefix: %v", err)
	}
	if _, err := grouped2.Acquire(ctx, name, "a2", 3*time.Second); !errors.Is(err, elector.ErrHeld) {
		t.Fatalf("second candidate of group a: err = %v, want ErrHeld", err)
	}
	if k := grouped.Key(name); !strings.HasPrefix(k, prefix+"a/") {
		t.Errorf("Key = %q, want it under %q", k, prefix+"a/")
	}
	resp, err := c.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range resp.Kvs {
		k := string(kv.Key)
		if !strings.HasPrefix(k, prefix+"a/") && !strings.HasPrefix(k, prefix+"b/") {
			t.Errorf("key %q is under neither group's prefix", k)
		}
	}
	if len(resp.Kvs) == 0 {
		t.Errorf("no key under %q", prefix)
	}
	if resp, err := c.Get(ctx, DefaultPrefix+"lease/"+name); err == nil && len(resp.Kvs) > 0 {
		t.Errorf("a prefixed store wrote under DefaultPrefix")
	}
}
