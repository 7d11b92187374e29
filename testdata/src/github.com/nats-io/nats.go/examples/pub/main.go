// Command pub is an example program inside the nats.go module: a command is
// one of the library's callers, so its periodic publish is reported even
// though the module declares Publish.
package main

import (
	"time"

	nats "github.com/nats-io/nats.go"
)

func main() {
	nc, _ := nats.Connect("nats://127.0.0.1:4222")
	for range time.Tick(time.Second) { // want `time.Tick runs loop body on every replica every 1s: it sends`
		nc.Publish("orders.created", []byte("order"))
	}
}
