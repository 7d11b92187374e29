package le3001

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// etcdLock takes a key only if it does not exist, but without a lease.
func etcdLock(ctx context.Context, cli *clientv3.Client, id string) (bool, error) {
	key := "/locks/compactor"
	resp, err := cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, id)). // want `the etcd transaction takes the lock key key \(create if absent\) with a put that has no lease`
		Commit()
	if err != nil {
		return false, err
	}
	return resp.Succeeded, nil
}

func etcdLockPrevKV(ctx context.Context, kv clientv3.KV, name, id string) (bool, error) {
	resp, err := kv.Txn(ctx).
		If(clientv3.Compare(clientv3.Version("/leader/"+name), "=", 0)).
		Then(clientv3.OpPut("/leader/"+name, id, clientv3.WithPrevKV())). // want `no lease`
		Commit()
	return err == nil && resp.Succeeded, err
}

// --- negatives ---

func etcdLeased(ctx context.Context, cli *clientv3.Client, id string) (bool, error) {
	lease, err := cli.Grant(ctx, 15)
	if err != nil {
		return false, err
	}
	key := "/locks/compactor"
	resp, err := cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, id, clientv3.WithLease(lease.ID))).
		Commit()
	if err != nil {
		return false, err
	}
	return resp.Succeeded, nil
}

func etcdOpts(ctx context.Context, cli *clientv3.Client, id string, opts []clientv3.OpOption) (bool, error) {
	key := "/locks/compactor"
	resp, err := cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, id, opts...)).
		Commit()
	return err == nil && resp.Succeeded, err
}

// etcdCAS: a put guarded by the key's current value is an update, not a lock.
func etcdCAS(ctx context.Context, cli *clientv3.Client, old, v string) error {
	_, err := cli.Txn(ctx).
		If(clientv3.Compare(clientv3.Value("/config/mode"), "=", old)).
		Then(clientv3.OpPut("/config/mode", v)).
		Commit()
	return err
}

// topoStore is a key-value store over etcd: its Create is a primitive whose
// key the caller names.
type topoStore struct {
	cli  *clientv3.Client
	root string
}

// Create makes a record only if it does not exist yet: not a lock.
func (s *topoStore) Create(ctx context.Context, p, contents string) error {
	nodePath := s.root + "/" + p
	_, err := s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.Version(nodePath), "=", 0)).
		Then(clientv3.OpPut(nodePath, contents)).
		Commit()
	return err
}

// CreateLock: the same primitive under a lock's name.
func (s *topoStore) CreateLock(ctx context.Context, p, contents string) error {
	nodePath := s.root + "/" + p
	_, err := s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.Version(nodePath), "=", 0)).
		Then(clientv3.OpPut(nodePath, contents)). // want `no lease`
		Commit()
	return err
}

// CreateMarker: the same name, but the code names the key.
func (s *topoStore) CreateMarker(ctx context.Context, contents string) error {
	nodePath := s.root + "/singletons/compactor"
	_, err := s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.Version(nodePath), "=", 0)).
		Then(clientv3.OpPut(nodePath, contents)). // want `no lease`
		Commit()
	return err
}
