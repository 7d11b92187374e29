// Package embedkv is a stand-in for an embedded key-value store in a local
// file, owned by one process.
package embedkv

import "os"

type DB struct{ f *os.File }

func (d *DB) CompareAndSwap(key, old, new []byte) (bool, error) { return false, nil }
