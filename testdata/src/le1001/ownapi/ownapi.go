// Package ownapi is a user of the nats.go stub in another module: the
// knowledge base's send entry for Conn.Publish applies to its calls.
package ownapi

import (
	"time"

	nats "github.com/nats-io/nats.go"
)

// announce publishes an event every minute on every replica: each
// subscriber receives it once per replica.
func announce(nc *nats.Conn, stop <-chan struct{}) {
	t := time.NewTicker(time.Minute) // want `time.NewTicker runs loop body on every replica every 1m0s: it sends`
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			nc.Publish("billing.tick", nil)
		}
	}
}
