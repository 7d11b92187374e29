// Package mvccpb is a stub of go.etcd.io/etcd/api/v3/mvccpb.
package mvccpb

type KeyValue struct {
	Key            []byte
	CreateRevision int64
	ModRevision    int64
	Version        int64
	Value          []byte
	Lease          int64
}
