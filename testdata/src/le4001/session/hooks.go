package session

import (
	"context"
	"time"

	"github.com/IBM/sarama"
)

// setupCtx keeps a context from Setup (through a helper that the check does
// not read): silent (its twin is ownCtx, whose field only a constructor sets).
type setupCtx struct {
	sessCtx context.Context
}

func (h *setupCtx) Setup(sess sarama.ConsumerGroupSession) error {
	h.sessCtx = scoped(sess)
	return nil
}

func scoped(sess sarama.ConsumerGroupSession) context.Context { return sess.Context() }

func (h *setupCtx) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h *setupCtx) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		for push(m.Value) != nil {
			select {
			case <-time.After(time.Second):
			case <-h.sessCtx.Done():
				return nil
			}
		}
	}
	return nil
}

type ownCtx struct {
	noHooks
	sessCtx context.Context
	cancel  context.CancelFunc
}

func newOwnCtx(ctx context.Context) *ownCtx {
	c, cancel := context.WithCancel(ctx)
	return &ownCtx{sessCtx: c, cancel: cancel}
}

func (h *ownCtx) Close() { h.cancel() }

func (h *ownCtx) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		for push(m.Value) != nil {
			select { // want `watches only a context that is not derived from the session's`
			case <-time.After(time.Second):
			case <-h.sessCtx.Done():
				return nil
			}
		}
	}
	return nil
}

// worker is built per claim; perClaim gives it the session's context:
// silent (its twin is sharedWorker, which gives it the process's).
type worker struct {
	ctx context.Context
}

func (w *worker) retry(m *sarama.ConsumerMessage) {
	for push(m.Value) != nil {
		select {
		case <-time.After(time.Second):
		case <-w.ctx.Done():
			return
		}
	}
}

type perClaim struct{ noHooks }

func (perClaim) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	w := &worker{ctx: sess.Context()}
	for m := range claim.Messages() {
		w.retry(m)
	}
	return nil
}

type slowWorker struct {
	ctx context.Context
}

func (w *slowWorker) retry(m *sarama.ConsumerMessage) {
	for push(m.Value) != nil {
		select { // want `watches only a context that is not derived from the session's \(in retry, called from ConsumeClaim\)`
		case <-time.After(time.Second):
		case <-w.ctx.Done():
			return
		}
	}
}

type sharedWorker struct{ noHooks }

func (sharedWorker) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	w := &slowWorker{ctx: context.Background()}
	for m := range claim.Messages() {
		w.retry(m)
	}
	return nil
}

// revoking closes its stop channel when the session ends: silent (its twin
// is closing, whose channel only Close closes).
type revoking struct {
	stop chan struct{}
}

func newRevoking() *revoking { return &revoking{stop: make(chan struct{})} }

func (h *revoking) Setup(sarama.ConsumerGroupSession) error { return nil }

func (h *revoking) Cleanup(sarama.ConsumerGroupSession) error {
	close(h.stop)
	return nil
}

func (h *revoking) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		for push(m.Value) != nil {
			select {
			case <-time.After(time.Second):
			case <-h.stop:
				return nil
			}
		}
	}
	return nil
}

type closing struct {
	noHooks
	stop chan struct{}
}

func newClosing() *closing { return &closing{stop: make(chan struct{})} }

func (h *closing) Close() { close(h.stop) }

func (h *closing) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		for push(m.Value) != nil {
			select { // want `observes neither the session's context nor the claim`
			case <-time.After(time.Second):
			case <-h.stop:
				return nil
			}
		}
	}
	return nil
}

// batching waits on the claim and a flush timer in one select: silent (its
// twin is feeding, which reads a channel of its own instead of the claim).
type batching struct {
	noHooks
	out chan []byte
}

func (h batching) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	var pending [][]byte
	for {
		select {
		case m, ok := <-claim.Messages():
			if !ok {
				return nil
			}
			pending = append(pending, m.Value)
		case <-time.After(time.Second):
			for _, v := range pending {
				h.out <- v
			}
			pending = pending[:0]
		}
	}
}

type feeding struct {
	noHooks
	feed chan *sarama.ConsumerMessage
	out  chan []byte
}

func newFeeding() feeding { return feeding{feed: make(chan *sarama.ConsumerMessage)} }

func (h feeding) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	var pending [][]byte
	for {
		select { // want `observes neither the session's context nor the claim`
		case m, ok := <-h.feed:
			if !ok {
				return nil
			}
			pending = append(pending, m.Value)
		case <-time.After(time.Second):
			for _, v := range pending {
				h.out <- v
			}
			pending = pending[:0]
		}
	}
}

// cancelling cancels its context when the session ends: silent (its twin is
// ownCtx, whose cancel only Close calls).
type cancelling struct {
	ctx    context.Context
	cancel context.CancelFunc
}

func newCancelling() *cancelling {
	ctx, cancel := context.WithCancel(context.Background())
	return &cancelling{ctx: ctx, cancel: cancel}
}

func (h *cancelling) Setup(sarama.ConsumerGroupSession) error { return nil }

func (h *cancelling) Cleanup(sarama.ConsumerGroupSession) error {
	h.cancel()
	return nil
}

func (h *cancelling) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		for push(m.Value) != nil {
			select {
			case <-time.After(time.Second):
			case <-h.ctx.Done():
				return nil
			}
		}
	}
	return nil
}

var (
	_ = newRevoking
	_ = newCancelling
	_ = newOwnCtx
	_ = newClosing
	_ = newFeeding
)
