// Package jetstream is a stub of a package of the nats.go module below the
// nats package: its calls of nats.Conn.Publish are the library's own.
package jetstream

import (
	"time"

	nats "github.com/nats-io/nats.go"
)

// heartbeat answers the server's flow control on the consumer's own
// connection every few seconds. Silent.
func heartbeat(nc *nats.Conn, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-time.After(5 * time.Second):
			nc.Publish("$JS.FC", nil)
		}
	}
}

// publisher is the package's view of a connection; *nats.Conn implements it.
type publisher interface {
	Publish(subj string, data []byte) error
}

// ackLoop acknowledges through the interface, which the analysis takes for
// the nats.Conn behind it: still the library's own traffic. Silent.
func ackLoop(p publisher, stop <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.Publish("$JS.ACK", nil)
		}
	}
}
