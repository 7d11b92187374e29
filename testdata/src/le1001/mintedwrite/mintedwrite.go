// Package mintedwrite: timers that write to shared storage a value each
// replica mints itself (a fresh key pair, random bytes), and their twins
// that write a value every replica computes alike, or take the storage's
// cluster lock first.
package mintedwrite

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"time"

	"github.com/caddyserver/certmagic"
)

type rotator struct {
	storage certmagic.Storage
	name    string
}

func pemKey(k *ecdsa.PrivateKey) []byte {
	der, _ := x509.MarshalECPrivateKey(k)
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
}

func newKey() (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}

// Positive: every replica generates its own key and stores it under the
// same key: the last writer wins, the others serve a key that is not stored.
func (r *rotator) runMinted(ctx context.Context) {
	t := time.NewTicker(time.Hour) // want `time.NewTicker runs loop body on every replica every 1h0m0s: it updates storage key keys/signing.pem, a value minted by ecdsa.GenerateKey`
	for range t.C {
		k, err := newKey()
		if err != nil {
			continue
		}
		_ = r.storage.Store(ctx, "keys/signing.pem", pemKey(k))
	}
}

// Positive: random bytes written to a shared key.
func (r *rotator) runRandom(ctx context.Context) {
	t := time.NewTicker(time.Hour) // want `time.NewTicker runs loop body on every replica every 1h0m0s: it updates storage key keys/ticket, a value minted by rand.Read`
	for range t.C {
		buf := make([]byte, 32)
		_, _ = rand.Read(buf)
		_ = r.storage.Store(ctx, "keys/ticket", buf)
	}
}

// Negative twin of runMinted: the value is the same on every replica (a
// configured name), a set to a value that converges.
func (r *rotator) runSame(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	for range t.C {
		_ = r.storage.Store(ctx, "keys/name", []byte(r.name))
	}
}

// Negative twin of runMinted: the storage's cluster lock is taken first,
// and the stored key is re-read under it.
func (r *rotator) runLocked(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	for range t.C {
		r.rotateLocked(ctx)
	}
}

func (r *rotator) rotateLocked(ctx context.Context) {
	if err := r.storage.Lock(ctx, "rotate"); err != nil {
		return
	}
	defer func() { _ = r.storage.Unlock(context.WithoutCancel(ctx), "rotate") }()
	if _, err := r.storage.Load(ctx, "keys/signing.pem"); err == nil {
		return
	}
	k, err := newKey()
	if err != nil {
		return
	}
	_ = r.storage.Store(ctx, "keys/signing.pem", pemKey(k))
}

// Negative twin of runMinted: the key is this instance's own (its host
// name), so each replica keeps its own minted key.
func (r *rotator) runOwnKey(ctx context.Context) {
	host, _ := os.Hostname()
	t := time.NewTicker(time.Hour)
	for range t.C {
		k, err := newKey()
		if err != nil {
			continue
		}
		_ = r.storage.Store(ctx, "keys/"+host+".pem", pemKey(k))
	}
}

// Negative twin of runMinted and runRandom: the storage's Store of a value
// every replica computes alike and its Delete of a fixed key converge when
// repeated (both idempotent in the knowledge base): N replicas doing them
// N times leave the storage as one would. Silent by default; the strict
// profile shows them (le1001strict/storage).
func (r *rotator) runTidy(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	for range t.C {
		_ = r.storage.Store(ctx, "keys/name", []byte(r.name))
		_ = r.storage.Delete(ctx, "keys/retired.pem")
	}
}
