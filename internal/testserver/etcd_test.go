package testserver

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

func newEtcdClient(t *testing.T, e *EtcdServer) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{e.Endpoint()},
		DialTimeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestEtcdClientCompat checks that the module's clientv3 (3.7) works against
// the installed server (Debian ships 3.4) for every call the elector's etcd
// store makes: KV, Txn, lease grant, keepalive, time-to-live, revoke, watch.
func TestEtcdClientCompat(t *testing.T) {
	e := Etcd(t)
	c := newEtcdClient(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	wch := c.Watch(ctx, "k")

	lease, err := c.Grant(ctx, 2)
	if err != nil {
		t.Fatalf("grant: %v", err)
	}
	txn, err := c.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision("k"), "=", 0)).
		Then(clientv3.OpPut("k", "a", clientv3.WithLease(lease.ID))).
		Commit()
	if err != nil || !txn.Succeeded {
		t.Fatalf("txn create: %v %+v", err, txn)
	}
	create := txn.Header.Revision
	txn, err = c.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision("k"), "=", 0)).
		Then(clientv3.OpPut("k", "b")).
		Commit()
	if err != nil || txn.Succeeded {
		t.Fatalf("second txn create must fail: %v %+v", err, txn)
	}
	get, err := c.Get(ctx, "k")
	if err != nil || len(get.Kvs) != 1 || get.Kvs[0].CreateRevision != create || get.Kvs[0].Lease != int64(lease.ID) {
		t.Fatalf("get: %v %+v (want create rev %d)", err, get, create)
	}
	ka, err := c.KeepAliveOnce(ctx, lease.ID)
	if err != nil || ka.TTL < 1 {
		t.Fatalf("keepalive once: %v %+v", err, ka)
	}
	ttl, err := c.TimeToLive(ctx, lease.ID)
	if err != nil || ttl.TTL < 1 || ttl.GrantedTTL != 2 {
		t.Fatalf("time to live: %v %+v", err, ttl)
	}
	select {
	case ev := <-wch:
		if ev.Err() != nil || len(ev.Events) == 0 || ev.Events[0].Type != clientv3.EventTypePut {
			t.Fatalf("watch: %v %+v", ev.Err(), ev)
		}
	case <-ctx.Done():
		t.Fatal("no watch event for the put")
	}
	if _, err := c.Revoke(ctx, lease.ID); err != nil {
		t.Fatalf("revoke: %v", err)
	}
	select {
	case ev := <-wch:
		if len(ev.Events) == 0 || ev.Events[0].Type != clientv3.EventTypeDelete {
			t.Fatalf("watch after revoke: %v %+v", ev.Err(), ev)
		}
	case <-ctx.Done():
		t.Fatal("no watch event for the revoke")
	}
	if _, err := c.KeepAliveOnce(ctx, lease.ID); err == nil {
		t.Fatal("keepalive of a revoked lease succeeded")
	}
}

// TestEtcdRestartKeepsRevisions checks the property the fencing token rests
// on: after a restart on the same data directory the revision continues
// from where it was, never going back.
func TestEtcdRestartKeepsRevisions(t *testing.T) {
	e := NewEtcd(t)
	c := newEtcdClient(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	put, err := c.Put(ctx, "k", "v")
	if err != nil {
		t.Fatalf("put: %v", err)
	}
	e.Restart(t)
	put2, err := c.Put(ctx, "k", "w")
	if err != nil {
		t.Fatalf("put after restart: %v", err)
	}
	if put2.Header.Revision <= put.Header.Revision {
		t.Fatalf("revision went back across restart: %d then %d", put.Header.Revision, put2.Header.Revision)
	}
	if err := e.Kill(); err != nil {
		t.Fatal(err)
	}
	e.Resume(t)
	put3, err := c.Put(ctx, "k", "x")
	if err != nil {
		t.Fatalf("put after kill -9: %v", err)
	}
	if put3.Header.Revision <= put2.Header.Revision {
		t.Fatalf("revision went back across kill -9: %d then %d", put2.Header.Revision, put3.Header.Revision)
	}
}
