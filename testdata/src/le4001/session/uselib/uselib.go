// Package uselib hands claimed messages to retrylib.
package uselib

import (
	"context"

	"github.com/IBM/sarama"

	"le4001/session/retrylib"
)

type hooks struct{}

func (hooks) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (hooks) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func put([]byte) error { return nil }

func putCtx(context.Context, []byte) error { return nil }

// detachedUser hands Deliver a context of its own.
type detachedUser struct {
	hooks
	base context.Context
}

func newDetachedUser() detachedUser { return detachedUser{base: context.Background()} }

func (u detachedUser) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		retrylib.Deliver(u.base, m, put) // want `retrylib.Deliver, called here from ConsumeClaim, runs a loop that can repeat for one claimed message without end \(le4001/session/retrylib/retrylib.go:15\) and is handed a context that is not derived from the session's`
		sess.MarkMessage(m, "")
	}
	return nil
}

// sessionUser hands Deliver the session's context: silent (its twin is
// detachedUser).
type sessionUser struct{ hooks }

func (sessionUser) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		retrylib.Deliver(sess.Context(), m, put)
		sess.MarkMessage(m, "")
	}
	return nil
}

// foreverUser: DeliverForever ignores the session's context it is given.
type foreverUser struct{ hooks }

func (foreverUser) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		retrylib.DeliverForever(sess.Context(), m, putCtx) // want `retrylib.DeliverForever, called here from ConsumeClaim, .* observes neither the session's context nor the claim`
		retrylib.DeliverTwice(m, put)
	}
	return nil
}

var _ = newDetachedUser
