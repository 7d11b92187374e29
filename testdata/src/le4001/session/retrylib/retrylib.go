// Package retrylib delivers claimed messages with retries; it has no
// handler of its own, so its loops are read for the BlindLoop fact only.
package retrylib

import (
	"context"
	"time"

	"github.com/IBM/sarama"
)

// Deliver retries until put succeeds or ctx ends.
func Deliver(ctx context.Context, m *sarama.ConsumerMessage, put func([]byte) error) { // want Deliver:"blind loop \\(ctx 0\\)"
	for put(m.Value) != nil {
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return
		}
	}
}

// DeliverForever retries until put succeeds, whatever its context.
func DeliverForever(ctx context.Context, m *sarama.ConsumerMessage, put func(context.Context, []byte) error) { // want DeliverForever:"blind loop \\(ctx -1\\)"
	for put(context.Background(), m.Value) != nil {
		time.Sleep(time.Second)
	}
}

// DeliverTwice gives up after two attempts.
func DeliverTwice(m *sarama.ConsumerMessage, put func([]byte) error) {
	for i := 0; i < 2 && put(m.Value) != nil; i++ {
		time.Sleep(time.Second)
	}
}
