package elector

import (
	"crypto/rand"
	"encoding/hex"
	"os"
)

// DefaultIdentity returns the hostname plus "-" plus a random per-process
// nonce. The nonce keeps two processes on one host (or two pods with the same
// hostname) apart; the price is that a restarted process cannot reclaim its
// predecessor's lease and waits for it to expire. Services that want an
// instant reclaim after restart pass a stable identity with WithIdentity (a pod
// name of a StatefulSet, say) and must then make sure two live processes never
// share it.
//
// # Two live processes with one identity
//
// The store cannot tell two processes with one identity apart: each Acquire by
// the second is a reclaim that gets a new token and ends the first one's term.
// The candidate detects this: when its renew fails with ErrLost while Read
// shows the same identity holding a newer token, it emits IdentityConflict
// (logged at error level), cancels its work as for any loss, and waits a full
// LeaseDuration before competing again, so the two do not steal the lease from
// each other at every renew. Fencing tokens keep their writes apart.
func DefaultIdentity() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	return host + "-" + processNonce
}

var processNonce = newNonce()

func newNonce() string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand does not fail on supported platforms; panic rather
		// than hand out identities that might collide.
		panic("elector: reading random nonce: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}
