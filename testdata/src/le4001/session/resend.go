// Package session holds the LE4001 cases of consumer-group claims: a loop of
// ConsumeClaim (or of code it calls) that can repeat for one message without
// end must observe the session's end.
package session

import (
	"context"
	"time"

	"github.com/IBM/sarama"
)

// noHooks gives the handlers empty Setup and Cleanup.
type noHooks struct{}

func (noHooks) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (noHooks) Cleanup(sarama.ConsumerGroupSession) error { return nil }

type delivery struct {
	ctx   context.Context
	acked chan struct{}
	nack  chan struct{}
}

// relay hands each claimed record to a router and re-sends it after a
// nack, until it is acked: the router's context is the relay's own.
type relay struct {
	noHooks
	ctx   context.Context
	out   chan *delivery
	pause time.Duration
}

func newRelay(ctx context.Context, out chan *delivery) relay {
	return relay{ctx: ctx, out: out, pause: 100 * time.Millisecond}
}

func (r relay) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		if err := r.deliver(r.ctx, m, sess); err != nil {
			return err
		}
	}
	return nil
}

func (r relay) deliver(ctx context.Context, m *sarama.ConsumerMessage, sess sarama.ConsumerGroupSession) error {
	ctx, cancel := context.WithCancel(withOffset(ctx, m.Offset))
	defer cancel()
	d := &delivery{ctx: ctx, acked: make(chan struct{}), nack: make(chan struct{})}
	for {
		select {
		case r.out <- d:
		case <-ctx.Done():
			return nil
		}
		select { // want `a round of this loop can repeat for one claimed message without end and watches only a context that is not derived from the session's \(in deliver, called from ConsumeClaim\)`
		case <-d.acked:
			if sess.Context().Err() != nil {
				return nil
			}
			sess.MarkMessage(m, "")
			return nil
		case <-d.nack:
			time.Sleep(r.pause)
			d = &delivery{ctx: ctx, acked: make(chan struct{}), nack: make(chan struct{})}
		case <-ctx.Done():
			return nil
		}
	}
}

type offsetKey struct{}

func withOffset(ctx context.Context, off int64) context.Context {
	return context.WithValue(ctx, offsetKey{}, off)
}

// watchedRelay is relay with the session's end in the wait for the answer:
// silent (its twin is relay).
type watchedRelay struct {
	noHooks
	ctx   context.Context
	out   chan *delivery
	pause time.Duration
}

func newWatchedRelay(ctx context.Context, out chan *delivery) watchedRelay {
	return watchedRelay{ctx: ctx, out: out}
}

func (r watchedRelay) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		if err := r.deliver(r.ctx, m, sess); err != nil {
			return err
		}
	}
	return nil
}

func (r watchedRelay) deliver(ctx context.Context, m *sarama.ConsumerMessage, sess sarama.ConsumerGroupSession) error {
	d := &delivery{ctx: ctx, acked: make(chan struct{}), nack: make(chan struct{})}
	revoked := sess.Context().Done()
	for {
		select {
		case r.out <- d:
		case <-ctx.Done():
			return nil
		}
		select {
		case <-d.acked:
			sess.MarkMessage(m, "")
			return nil
		case <-d.nack:
			time.Sleep(r.pause)
		case <-revoked:
			return nil
		}
	}
}

// exportedRelay keeps its context in an exported field that other packages
// may set to anything, the session's context too: silent (its twin is relay,
// whose field only this package sets).
type exportedRelay struct {
	noHooks
	Ctx context.Context
	out chan *delivery
}

func (r exportedRelay) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		d := &delivery{acked: make(chan struct{}), nack: make(chan struct{})}
	resend:
		for {
			r.out <- d
			select {
			case <-d.acked:
				sess.MarkMessage(m, "")
				break resend
			case <-d.nack:
			case <-r.Ctx.Done():
				return nil
			}
		}
	}
	return nil
}

var (
	_ = newRelay
	_ = newWatchedRelay
	_ = exportedRelay{Ctx: context.Background()}
)
