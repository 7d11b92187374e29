package elector

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
)

// A lease alone cannot stop a leader that was paused (a long GC, a frozen VM)
// past its deadline from writing after a new leader started. Only the
// resource can: every write carries the writer's token, and the resource
// refuses tokens older than the newest it has seen. The helpers below make
// that check one line at the resource.

// ErrStaleToken means a write carried a fencing token older than one the
// resource has already accepted: the writer is no longer the leader.
var ErrStaleToken = errors.New("elector: stale fencing token")

// CheckToken reports whether a write with token may proceed on a resource
// whose newest accepted token is latest: it may when token >= latest (the
// current leader writing again, or a newer one). It returns an error wrapping
// ErrStaleToken otherwise, and for the zero token, which no grant carries.
func CheckToken(latest, token uint64) error {
	if token == 0 {
		return fmt.Errorf("%w: token 0 was never granted", ErrStaleToken)
	}
	if token < latest {
		return fmt.Errorf("%w: %d, resource has seen %d", ErrStaleToken, token, latest)
	}
	return nil
}

// Fence guards an in-memory resource. Call Admit with the writer's token
// before (and atomically with) each write; the zero value is ready to use.
type Fence struct {
	mu     sync.Mutex
	latest uint64
}

// Admit records token as the newest seen and returns nil, or returns an error
// wrapping ErrStaleToken if a newer token has been admitted before.
func (f *Fence) Admit(token uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := CheckToken(f.latest, token); err != nil {
		return err
	}
	f.latest = token
	return nil
}

// Do runs write while holding the fence, if token is admitted, so no newer
// leader's write can interleave between the check and the write.
func (f *Fence) Do(token uint64, write func() error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := CheckToken(f.latest, token); err != nil {
		return err
	}
	f.latest = token
	return write()
}

// Latest is the newest admitted token.
func (f *Fence) Latest() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.latest
}

// FenceSQL returns a SQL condition and its argument that make an UPDATE apply
// only while token is at least the token stored in column, and the SET clause
// that records it, for a placeholder $n (Postgres style):
//
//	cond, set, arg := elector.FenceSQL("fence_token", 2, lease.Token())
//	tag, err := db.Exec(ctx, "UPDATE jobs SET state = $1, "+set+" WHERE id = $3 AND "+cond, state, arg, id)
//	// tag.RowsAffected() == 0: a newer leader has written; stop.
//
// column is inserted verbatim: pass a constant, never user input. Rows start
// with fence_token 0 (NOT NULL DEFAULT 0), so the first leader passes.
func FenceSQL(column string, n int, token uint64) (cond, set string, arg uint64) {
	p := "$" + strconv.Itoa(n)
	return column + " <= " + p, column + " = " + p, token
}

// TokenHeader is the HTTP header that carries a fencing token to a service.
const TokenHeader = "X-Fencing-Token"

// SetTokenHeader puts token on a request to a service that fences with
// TokenFromRequest.
func SetTokenHeader(h http.Header, token uint64) {
	h.Set(TokenHeader, strconv.FormatUint(token, 10))
}

// TokenFromRequest parses the fencing token of a request; a missing or
// malformed header is an error, so a service can refuse unfenced writes.
func TokenFromRequest(r *http.Request) (uint64, error) {
	v := r.Header.Get(TokenHeader)
	if v == "" {
		return 0, fmt.Errorf("elector: missing %s header", TokenHeader)
	}
	t, err := strconv.ParseUint(v, 10, 64)
	if err != nil || t == 0 {
		return 0, fmt.Errorf("elector: malformed %s header %q", TokenHeader, v)
	}
	return t, nil
}

// FenceHandler wraps a service's write handler: requests whose token is
// missing or older than the newest admitted one get 409 Conflict and never
// reach next. The check and next run under the fence, so writes are
// serialised per Fence.
func FenceHandler(f *Fence, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, err := TokenFromRequest(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		err = f.Do(token, func() error {
			next.ServeHTTP(w, r)
			return nil
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
		}
	})
}
