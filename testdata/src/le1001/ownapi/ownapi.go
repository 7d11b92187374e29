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

// events is the project's view of a connection; *nats.Conn implements it.
type events interface {
	Publish(subj string, data []byte) error
}

// remind publishes through the interface, taken for the nats.Conn behind
// it: a user's send (the positive twin of jetstream's ackLoop).
func remind(e events, stop <-chan struct{}) {
	t := time.NewTicker(time.Hour) // want `time.NewTicker runs loop body on every replica every 1h0m0s: it sends`
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			e.Publish("billing.remind", nil)
		}
	}
}
