// Package shopify holds the LE4001 session cases under sarama's old import
// path, which the knowledge base lists as well.
package shopify

import (
	"context"
	"time"

	"github.com/Shopify/sarama"
)

type base struct{}

func (base) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (base) Cleanup(sarama.ConsumerGroupSession) error { return nil }

type sink interface {
	Put(ctx context.Context, value []byte) error
}

// forwarder retries on the process's context.
type forwarder struct {
	base
	to sink
}

func (f forwarder) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		for f.to.Put(context.TODO(), m.Value) != nil {
			time.Sleep(time.Second) // want `observes neither the session's context nor the claim`
		}
		sess.MarkMessage(m, "")
	}
	return nil
}

// sessionForwarder retries on the session's context: silent (its twin is
// forwarder).
type sessionForwarder struct {
	base
	to sink
}

func (f sessionForwarder) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		for f.to.Put(sess.Context(), m.Value) != nil {
			time.Sleep(time.Second)
		}
		sess.MarkMessage(m, "")
	}
	return nil
}
