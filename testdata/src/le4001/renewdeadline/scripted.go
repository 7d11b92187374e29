// Package renewdeadline holds locks whose renewals are bounded by a
// deadline: by the expiry the renewal asks for (reported), or by the
// lease's current expiry (silent).
package renewdeadline

import (
	"context"
	"errors"
	"log"
	"strconv"
	"time"

	"example.com/scriptkv"
)

var (
	// extendIfOwner moves the key's expiry to an absolute time when this
	// holder still owns it.
	extendIfOwner = scriptkv.NewScript(`if redis.call("GET",KEYS[1]) == ARGV[1] then return redis.call("PEXPIREAT",KEYS[1],ARGV[2]) end return 0`)
	// extendFixed moves the expiry by a TTL written in the script.
	extendFixed = scriptkv.NewScript(`if redis.call("GET",KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE",KEYS[1],30000) end return 0`)
	// announce tells the others who holds the key; it moves no expiry.
	announce = scriptkv.NewScript(`return redis.call("PUBLISH",KEYS[1],ARGV[1] .. ":" .. ARGV[2])`)
)

var errNotHeld = errors.New("not held")

type holder struct {
	kv       *scriptkv.Client
	key      string
	token    string
	ttl      time.Duration
	interval time.Duration
}

// runScript runs a script on the key, its call bounded by deadline, the
// expiry it passes to the script.
func (h *holder) runScript(ctx context.Context, s *scriptkv.Script, deadline time.Time) error {
	if d, ok := ctx.Deadline(); !ok || d.After(deadline) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	n, err := s.Run(ctx, h.kv, []string{h.key}, []string{h.token, strconv.FormatInt(deadline.UnixMilli(), 10)}).Int()
	if err != nil {
		return err
	}
	if n != 1 {
		return errNotHeld
	}
	return nil
}

// runBounded runs a script that moves the expiry to next, its call bounded
// by current, the expiry the key has now.
func (h *holder) runBounded(ctx context.Context, s *scriptkv.Script, current, next time.Time) error {
	ctx, cancel := context.WithDeadline(ctx, current)
	defer cancel()
	n, err := s.Run(ctx, h.kv, []string{h.key}, []string{h.token, strconv.FormatInt(next.UnixMilli(), 10)}).Int()
	if err != nil {
		return err
	}
	if n != 1 {
		return errNotHeld
	}
	return nil
}

// hold renews on a timer; the lock's context is cancelled when a renewal
// fails. The timer that would end it at the first expiry is stopped once
// the key is held, so nothing ends the work at the current expiry: when
// the store stops answering, the renewal waits until now+ttl, one interval
// past the key's expiry.
func (h *holder) hold(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	deadline := time.Now().Add(h.ttl)
	expiry := time.AfterFunc(h.ttl, cancel)
	go func() {
		var err error
		for timer := time.NewTimer(h.interval); err == nil; {
			select {
			case <-ctx.Done():
				err = ctx.Err()
			case <-timer.C:
				deadline = time.Now().Add(h.ttl)
				if err = h.runScript(ctx, extendIfOwner, deadline); err == nil { // want `this renewal is bounded by the new expiry it asks for, which ends after the lease's current expiry`
					timer.Reset(h.interval)
				}
			}
		}
		log.Printf("lock %s lost: %v", h.key, err)
		cancel()
	}()
	expiry.Stop()
	return ctx, cancel
}

// holdSaved bounds each renewal by the expiry saved from the previous
// success, and asks for the next one.
func (h *holder) holdSaved(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	current := time.Now().Add(h.ttl)
	go func() {
		defer cancel()
		t := time.NewTicker(h.interval)
		defer t.Stop()
		for range t.C {
			next := time.Now().Add(h.ttl)
			if err := h.runBounded(ctx, extendIfOwner, current, next); err != nil {
				return
			}
			current = next
		}
	}()
	return ctx, cancel
}

// confirm re-asserts the expiry the key already has, bounded by it: the
// call never outlives the hold.
func (h *holder) confirm(parent context.Context, deadline time.Time) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	go func() {
		defer cancel()
		for {
			time.Sleep(h.interval)
			if err := h.runScript(ctx, extendIfOwner, deadline); err != nil {
				return
			}
		}
	}()
	return ctx, cancel
}

// confirmFresh is confirm's twin: the deadline it passes is computed
// afresh, the new expiry.
func (h *holder) confirmFresh(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	go func() {
		defer cancel()
		for {
			time.Sleep(h.interval)
			if err := h.runScript(ctx, extendIfOwner, time.Now().Add(h.ttl)); err != nil { // want `this renewal is bounded by the new expiry it asks for`
				return
			}
		}
	}()
	return ctx, cancel
}

// holdFixed asks for an expiry written in the script: the TTL it asks for
// is out of sight, so the bound is not known to be later than the expiry.
func (h *holder) holdFixed(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	go func() {
		defer cancel()
		for {
			time.Sleep(h.interval)
			deadline := time.Now().Add(h.ttl)
			ctx2, done := context.WithDeadline(ctx, deadline)
			_, err := extendFixed.Run(ctx2, h.kv, []string{h.key}, []string{h.token}).Int()
			done()
			if err != nil {
				return
			}
		}
	}()
	return ctx, cancel
}

// holdAsked is holdFixed's twin: the script is given the deadline it is
// bounded by.
func (h *holder) holdAsked(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	go func() {
		defer cancel()
		for {
			time.Sleep(h.interval)
			deadline := time.Now().Add(h.ttl)
			ctx2, done := context.WithDeadline(ctx, deadline)
			_, err := extendIfOwner.Run(ctx2, h.kv, []string{h.key}, []string{h.token, strconv.FormatInt(deadline.UnixMilli(), 10)}).Int() // want `this renewal is bounded by the new expiry it asks for`
			done()
			if err != nil {
				return
			}
		}
	}()
	return ctx, cancel
}

// announceLoop passes a deadline to a script that moves no expiry.
func (h *holder) announceLoop(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	go func() {
		defer cancel()
		for {
			time.Sleep(h.interval)
			if err := h.runScript(ctx, announce, time.Now().Add(h.ttl)); err != nil {
				return
			}
		}
	}()
	return ctx, cancel
}

// putLoop stores the key with an expiry through a call the knowledge base
// does not know and no text says what it does: unknown, silent.
func (h *holder) putLoop(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	go func() {
		defer cancel()
		for {
			time.Sleep(h.interval)
			deadline := time.Now().Add(h.ttl)
			ctx2, done := context.WithDeadline(ctx, deadline)
			err := h.kv.Put(ctx2, h.key, h.token, deadline.UnixMilli())
			done()
			if err != nil {
				return
			}
		}
	}()
	return ctx, cancel
}

// extendOnce renews once, not in a paced loop: the caller decides.
func (h *holder) extendOnce(ctx context.Context, cancel context.CancelFunc) error {
	if err := h.runScript(ctx, extendIfOwner, time.Now().Add(h.ttl)); err != nil {
		cancel()
		return err
	}
	return nil
}

// holdUnstopped's loop stops nothing when it is left: the lock has no
// context to cancel (whether the failure is handled is another check's).
func (h *holder) holdUnstopped(ctx context.Context) {
	go func() {
		for {
			time.Sleep(h.interval)
			if err := h.runScript(ctx, extendIfOwner, time.Now().Add(h.ttl)); err != nil {
				log.Printf("renew: %v", err)
				return
			}
		}
	}()
}

// holdWatched re-arms a timer at each new expiry that cancels the work:
// the work ends at the current expiry whatever the renewal does.
func (h *holder) holdWatched(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	watchdog := time.AfterFunc(h.ttl, cancel)
	go func() {
		defer cancel()
		for {
			time.Sleep(h.interval)
			next := time.Now().Add(h.ttl)
			if err := h.runScript(ctx, extendIfOwner, next); err != nil {
				return
			}
			watchdog.Reset(time.Until(next))
		}
	}()
	return ctx, cancel
}

// holdOnce arms the timer at the first expiry and never stops it: the work
// ends then, renewed or not.
func (h *holder) holdOnce(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	time.AfterFunc(h.ttl, func() { cancel() })
	go func() {
		defer cancel()
		for {
			time.Sleep(h.interval)
			if err := h.runScript(ctx, extendIfOwner, time.Now().Add(h.ttl)); err != nil {
				return
			}
		}
	}()
	return ctx, cancel
}
