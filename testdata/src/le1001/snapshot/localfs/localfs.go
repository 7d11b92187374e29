// Package localfs keeps state on the local disk behind a store interface
// with its implementation in sight.
package localfs

import (
	"context"
	"encoding/json"
	"os"
	"time"
)

// Disk is a store interface.
type Disk interface {
	GetContent(ctx context.Context, path string) ([]byte, error)
	PutContent(ctx context.Context, path string, content []byte) error
}

type fileDisk struct{ root string }

func (d *fileDisk) GetContent(ctx context.Context, path string) ([]byte, error) {
	return os.ReadFile(d.root + path)
}

func (d *fileDisk) PutContent(ctx context.Context, path string, content []byte) error {
	return os.WriteFile(d.root+path, content, 0o600)
}

type index struct {
	disk    Disk
	entries map[string]time.Time
}

// Run: the only implementation in sight writes the local disk.
func (x *index) Run(ctx context.Context) {
	for range time.Tick(5 * time.Second) {
		b, err := json.Marshal(x.entries)
		if err == nil {
			_ = x.disk.PutContent(ctx, "/index.json", b)
		}
	}
}

// RunFile writes the local disk directly.
func (x *index) RunFile() {
	for range time.Tick(5 * time.Second) {
		b, err := json.Marshal(x.entries)
		if err == nil {
			_ = os.WriteFile("/var/lib/index.json", b, 0o600)
		}
	}
}
