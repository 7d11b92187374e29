// Package snapshot: every replica overwrites one shared key with its own
// in-memory index.
package snapshot

import (
	"context"
	"encoding/json"
	"os"
	"time"

	"le1001/snapshot/driver"
)

type entry struct {
	Key    string
	Expiry time.Time
}

type index struct {
	store   driver.Blobs
	app     driver.Appender
	path    string
	state   string
	hostDir string
	entries map[string]*entry
	list    []entry
	count   int
}

// NewIndex builds the index; its state path comes from the caller.
func NewIndex(store driver.Blobs, path string) *index {
	return &index{store: store, path: path, entries: map[string]*entry{}}
}

// NewOwn keys the state file by this host.
func NewOwn(store driver.Blobs) *index {
	h, _ := os.Hostname()
	return &index{store: store, state: "/state-" + h + ".json"}
}

func (x *index) save(ctx context.Context) error {
	b, err := json.Marshal(x.entries)
	if err != nil {
		return err
	}
	return x.store.PutContent(ctx, "/index.json", b)
}

// RunConst overwrites a constant path with the local entries.
func (x *index) RunConst(ctx context.Context) {
	t := time.NewTicker(5 * time.Second) // want `store key "/index.json", overwritten with this process's own snapshot of x.entries`
	for range t.C {
		_ = x.save(ctx)
	}
}

// RunField overwrites the path the constructor was given.
func (x *index) RunField(ctx context.Context) {
	for range time.Tick(5 * time.Second) { // want `store key x.path \(set from parameter path\), overwritten with this process's own snapshot of x.list`
		b, err := json.Marshal(x.list)
		if err == nil {
			_ = x.store.PutContent(ctx, x.path, b)
		}
	}
}

// RunOwnKey writes this host's own file: per-replica.
func (x *index) RunOwnKey(ctx context.Context) {
	for range time.Tick(5 * time.Second) {
		b, err := json.Marshal(x.entries)
		if err == nil {
			_ = x.store.PutContent(ctx, x.state, b)
		}
	}
}

// NewHostDir is given the directory of this host.
func NewHostDir(store driver.Blobs, hostDir string) *index {
	return &index{store: store, hostDir: hostDir}
}

// RunHostDir writes under the host's own directory: per-replica.
func (x *index) RunHostDir(ctx context.Context) {
	for range time.Tick(5 * time.Second) {
		b, err := json.Marshal(x.entries)
		if err == nil {
			_ = x.store.PutContent(ctx, x.hostDir, b)
		}
	}
}

// RunVerify compares the local index with the shared one: no write.
func (x *index) RunVerify(ctx context.Context) {
	for range time.Tick(5 * time.Second) {
		b, err := json.Marshal(x.entries)
		if err == nil {
			_ = x.store.Verify(ctx, "/index.json", b)
		}
	}
}

// RunHostKey puts the host name into the key: per-replica.
func (x *index) RunHostKey(ctx context.Context) {
	for range time.Tick(5 * time.Second) {
		h, _ := os.Hostname()
		b, err := json.Marshal(x.entries)
		if err == nil {
			_ = x.store.PutContent(ctx, "/state-"+h, b)
		}
	}
}

// RunRead only reads the shared index.
func (x *index) RunRead(ctx context.Context) {
	for range time.Tick(5 * time.Second) {
		b, err := x.store.GetContent(ctx, "/index.json")
		if err == nil {
			_ = json.Unmarshal(b, &x.list)
		}
	}
}

// RunMarker writes a constant payload, not a snapshot of local state.
func (x *index) RunMarker(ctx context.Context) {
	for range time.Tick(5 * time.Second) {
		_ = x.store.PutContent(ctx, "/alive", []byte("ok"))
	}
}

// RunScalar marshals a counter, not a map or slice of entries.
func (x *index) RunScalar(ctx context.Context) {
	for range time.Tick(5 * time.Second) {
		b, err := json.Marshal(x.count)
		if err == nil {
			_ = x.store.PutContent(ctx, "/count", b)
		}
	}
}

// RunAppender writes through an interface without a read method.
func (x *index) RunAppender(ctx context.Context) {
	for range time.Tick(5 * time.Second) {
		b, err := json.Marshal(x.entries)
		if err == nil {
			_ = x.app.PutContent(ctx, "/index.json", b)
		}
	}
}
