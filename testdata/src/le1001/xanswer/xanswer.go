// Package xanswer: loops that post through a client of another package
// (tokenclient), whose responses are read, or not, in packages further
// down. A token refresh asks and keeps its answer per replica; a webhook
// notification tells, once per replica.
package xanswer

import (
	"time"

	"le1001/xanswer/sdktoken"
	"le1001/xanswer/tokenclient"
)

// Negative: the token's bytes are read (boundedread.ReadAll) and kept.
func keepToken(c *tokenclient.Client) {
	for range time.Tick(time.Minute) {
		c.FetchToken()
	}
}

// Negative: the bytes read are returned by the client, as a token fetch
// does.
func keepTokenRaw(c *tokenclient.Client, keep func([]byte)) {
	for range time.Tick(time.Minute) {
		if b, err := c.FetchTokenRaw(); err == nil {
			keep(b)
		}
	}
}

// Negative: the response is decoded by a helper that takes it.
func keepTokenDecoded(c *tokenclient.Client, keep func(string)) {
	for range time.Tick(time.Minute) {
		if tok, err := c.FetchTokenDecoded(); err == nil {
			keep(tok)
		}
	}
}

// Positive twin: the webhook's body is drained.
func announce(c *tokenclient.Client) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends \(via tokenclient.\(\*Client\).Notify\); guarded by nothing`
		c.Notify("up")
	}
}

// Positive twin: the webhook's body is read only into an error.
func announceChecked(c *tokenclient.Client) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends HTTP POST \(via tokenclient.\(\*Client\).NotifyChecked\); guarded by nothing`
		c.NotifyChecked("up")
	}
}

// Positive twin: the webhook's body is read by the bounded reader, whose
// bytes are dropped.
func announceRead(c *tokenclient.Client) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends \(via tokenclient.\(\*Client\).NotifyRead\); guarded by nothing`
		c.NotifyRead("up")
	}
}

// Negative: an SDK credential refresh (sender field or retry helper, the
// response read and decoded in the same function).
func refreshSDK(c *sdktoken.Credential) {
	for range time.Tick(time.Minute) {
		c.Refresh(true)
	}
}

// Negative: the same through the sender field alone.
func refreshSDKDirect(c *sdktoken.Credential) {
	for range time.Tick(time.Minute) {
		c.RefreshDirect()
	}
}

// Positive twin: the same two paths, the response closed unread.
func announceSDK(c *sdktoken.Credential) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends HTTP POST \(via sdktoken.\(\*Credential\).Announce\); guarded by nothing`
		c.Announce(true)
	}
}

// Positive twin: the sender field alone, the response closed unread.
func announceSDKDirect(c *sdktoken.Credential) {
	for range time.Tick(time.Minute) { // want `time.Tick runs loop body on every replica every 1m0s: it sends HTTP POST \(via sdktoken.\(\*Credential\).AnnounceDirect\); guarded by nothing`
		c.AnnounceDirect()
	}
}
