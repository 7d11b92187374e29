package session

import (
	"context"
	"errors"
	"time"

	"github.com/IBM/sarama"
)

type store interface {
	Save(ctx context.Context, value []byte) error
}

// saver retries a write on a context of its own making.
type saver struct {
	noHooks
	db store
}

func (s saver) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		for {
			if err := s.db.Save(ctx, m.Value); err == nil {
				break
			}
			time.Sleep(time.Second) // want `a round of this loop can repeat for one claimed message without end and observes neither the session's context nor the claim`
		}
		cancel()
		sess.MarkMessage(m, "")
	}
	return nil
}

// sessionSaver hands the write a context derived from the session's: silent
// (its twin is saver).
type sessionSaver struct {
	noHooks
	db store
}

func (s sessionSaver) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		ctx, cancel := context.WithTimeout(sess.Context(), time.Minute)
		for {
			if err := s.db.Save(ctx, m.Value); err == nil {
				break
			}
			time.Sleep(time.Second)
		}
		cancel()
		sess.MarkMessage(m, "")
	}
	return nil
}

var errBusy = errors.New("busy")

func push(value []byte) error {
	if len(value) == 0 {
		return errBusy
	}
	return nil
}

// fewTries gives up after three attempts: silent (its twin is manyTries).
type fewTries struct{ noHooks }

func (fewTries) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		for attempt := 0; attempt < 3; attempt++ {
			if push(m.Value) == nil {
				break
			}
			time.Sleep(time.Second)
		}
		sess.MarkMessage(m, "")
	}
	return nil
}

// manyTries is fewTries without the count.
type manyTries struct{ noHooks }

func (manyTries) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		for {
			if push(m.Value) == nil {
				break
			}
			time.Sleep(time.Second) // want `observes neither the session's context nor the claim`
		}
		sess.MarkMessage(m, "")
	}
	return nil
}

// askingSaver hands the session to the check it retries on, which may stop
// when the session ends: silent (its twin is manyTries).
type askingSaver struct{ noHooks }

func (a askingSaver) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		for !a.done(sess, m) {
			time.Sleep(time.Second)
		}
	}
	return nil
}

func (askingSaver) done(sess sarama.ConsumerGroupSession, m *sarama.ConsumerMessage) bool {
	if sess.Context().Err() != nil {
		return true
	}
	return push(m.Value) == nil
}

// plain works each record once and returns when the claim ends: silent
// (its twin is pumping, whose work goes on in a goroutine).
type plain struct{ noHooks }

func (plain) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		_ = push(m.Value)
		sess.MarkMessage(m, "")
	}
	return nil
}

// pumping starts a goroutine per claim that retries on its own.
type pumping struct {
	noHooks
	base context.Context
}

func newPumping() *pumping { return &pumping{base: context.Background()} }

func (p *pumping) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		go p.pump(p.base, m)
	}
	return nil
}

func (p *pumping) pump(ctx context.Context, m *sarama.ConsumerMessage) {
	for push(m.Value) != nil {
		select { // want `watches only a context that is not derived from the session's \(in pump, called from ConsumeClaim\)`
		case <-time.After(time.Second):
		case <-ctx.Done():
			return
		}
	}
}

var _ = newPumping

// ticking starts a heartbeat per claim on a context of its own; the loop
// handles no message, so it is no per-message work: silent (its twin is
// pumping, whose goroutine retries a message).
type ticking struct {
	noHooks
	base  context.Context
	beats chan int32
}

func newTicking() *ticking { return &ticking{base: context.Background(), beats: make(chan int32)} }

func (t *ticking) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	go t.beat(t.base, claim.Partition())
	for m := range claim.Messages() {
		_ = push(m.Value)
		sess.MarkMessage(m, "")
	}
	return nil
}

func (t *ticking) beat(ctx context.Context, partition int32) {
	for {
		select {
		case <-time.After(time.Second):
			t.beats <- partition
		case <-ctx.Done():
			return
		}
	}
}

var _ = newTicking
