// Package caslock: locks built from a store key's compare-and-swap from
// empty, released by swapping back or deleting the key.
package caslock

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"example.com/embedkv"
	"example.com/kvstore"
)

func token() string {
	b := make([]byte, 8)
	rand.Read(b)
	return fmt.Sprintf("%x", b)
}

// KVLocker waits until the swap from empty succeeds; nothing ever ends the
// value if the holder dies.
type KVLocker struct{ kv *kvstore.Client }

func (l *KVLocker) Lock(ctx context.Context, key string) (string, error) {
	tok := token()
	for {
		ok, err := l.kv.CompareAndSwap(ctx, key, "", tok) // want `CompareAndSwap takes the lock in \(KVLocker\).Lock by swapping the key \(key\) from empty to the holder's value, and \(KVLocker\).Unlock releases it by setting it back: CompareAndSwap takes no TTL`
		if err != nil {
			return "", err
		}
		if ok {
			return tok, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (l *KVLocker) Unlock(ctx context.Context, key, tok string) error {
	_, err := l.kv.CompareAndSwap(ctx, key, tok, "")
	return err
}

// DeleteLocker releases by deleting the key on the same client.
type DeleteLocker struct{ kv *kvstore.Client }

func (l *DeleteLocker) TryAcquire(ctx context.Context, name, id string) (bool, error) {
	return l.kv.CompareAndSwap(ctx, "locks/"+name, "", id) // want `CompareAndSwap takes the lock in \(DeleteLocker\).TryAcquire by swapping the key \("locks/" \+ name\) from empty`
}

func (l *DeleteLocker) Release(ctx context.Context, name string) error {
	return l.kv.Delete(ctx, "locks/"+name)
}

// Negative: the swap gives the value a TTL (twin: KVLocker).
type TTLLocker struct{ kv *kvstore.Client }

func (l *TTLLocker) Lock(ctx context.Context, key string) (string, error) {
	tok := token()
	for {
		ok, err := l.kv.CompareAndSwapTTL(ctx, key, "", tok, 30*time.Second)
		if err != nil || ok {
			return tok, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (l *TTLLocker) Unlock(ctx context.Context, key, tok string) error {
	_, err := l.kv.CompareAndSwap(ctx, key, tok, "")
	return err
}

// Negative: the value is bound to a session, which ends with the holder
// (twin: KVLocker).
type SessionLocker struct {
	kv   *kvstore.Client
	sess kvstore.SessionID
}

func (l *SessionLocker) Lock(ctx context.Context, key string) (bool, error) {
	return l.kv.CompareAndSwapSession(ctx, key, "", token(), l.sess)
}

func (l *SessionLocker) Unlock(ctx context.Context, key, tok string) error {
	_, err := l.kv.CompareAndSwap(ctx, key, tok, "")
	return err
}

// Negative: a holder whose stamp is old is taken over by swapping from the
// value read (twin: KVLocker).
type TakeoverLocker struct{ kv *kvstore.Client }

func (l *TakeoverLocker) Lock(ctx context.Context, key string) (string, error) {
	tok := fmt.Sprintf("%d/%s", time.Now().Unix(), token())
	for {
		ok, err := l.kv.CompareAndSwap(ctx, key, "", tok)
		if err != nil || ok {
			return tok, err
		}
		cur, err := l.kv.Get(ctx, key)
		if err != nil {
			return "", err
		}
		if stale(cur) {
			if ok, err := l.kv.CompareAndSwap(ctx, key, cur, tok); err != nil || ok {
				return tok, err
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func stale(v string) bool {
	var at int64
	fmt.Sscanf(v, "%d/", &at)
	return time.Since(time.Unix(at, 0)) > time.Minute
}

func (l *TakeoverLocker) Unlock(ctx context.Context, key, tok string) error {
	_, err := l.kv.CompareAndSwap(ctx, key, tok, "")
	return err
}

// Negative: an embedded store in a local file belongs to one process
// (twin: KVLocker).
type FileLocker struct{ db *embedkv.DB }

func (l *FileLocker) Lock(key string) (bool, error) {
	return l.db.CompareAndSwap([]byte(key), nil, []byte(token()))
}

func (l *FileLocker) Unlock(key, tok string) error {
	_, err := l.db.CompareAndSwap([]byte(key), []byte(tok), nil)
	return err
}

// Negative: in-process compare-and-swaps are no store lock (twin:
// KVLocker).
type MemLocker struct {
	held  atomic.Bool
	names sync.Map
}

func (l *MemLocker) Lock(key string) bool {
	return l.held.CompareAndSwap(false, true) && l.names.CompareAndSwap(key, "", token())
}

func (l *MemLocker) Unlock(key, tok string) {
	l.names.CompareAndSwap(key, tok, "")
	l.held.Store(false)
}

// Negative: a do-once marker is not named like a lock and never goes back
// to empty (twin: KVLocker).
type Once struct{ kv *kvstore.Client }

func (o *Once) Start(ctx context.Context, key string) (bool, error) {
	return o.kv.CompareAndSwap(ctx, key, "", "doing")
}

func (o *Once) Finish(ctx context.Context, key string) error {
	_, err := o.kv.CompareAndSwap(ctx, key, "doing", "done")
	return err
}

// Negative: the project's own compare-and-swap over a map in memory (twin:
// KVLocker).
type memKV struct {
	mu sync.Mutex
	m  map[string]string
}

func (s *memKV) CompareAndSwap(key, old, new string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m[key] != old {
		return false
	}
	s.m[key] = new
	return true
}

type MapLocker struct{ kv *memKV }

func (l *MapLocker) Lock(key string) bool { return l.kv.CompareAndSwap(key, "", token()) }

func (l *MapLocker) Unlock(key, tok string) { l.kv.CompareAndSwap(key, tok, "") }

// Negative: names that do not say lock (twin: KVLocker).
type Marker struct{ kv *kvstore.Client }

func (m *Marker) Mark(ctx context.Context, key string) (bool, error) {
	return m.kv.CompareAndSwap(ctx, key, "", "seen")
}

func (m *Marker) Clear(ctx context.Context, key string) error {
	_, err := m.kv.CompareAndSwap(ctx, key, "seen", "")
	return err
}
