// Package ownflush is an in-process event bus: subscribers receive what
// the process itself publishes. Its reporter below is of the same module.
package ownflush

import (
	"sync"
	"time"
)

// Event is something that happened in this process.
type Event struct {
	Name string
	At   time.Time
	Data any
}

// Bus fans events out to its subscribers.
type Bus struct {
	mu   sync.Mutex
	subs []*Subscription
}

// Subscription receives the bus's events.
type Subscription struct {
	ch chan Event
}

// Subscribe adds a subscriber.
func (b *Bus) Subscribe() *Subscription {
	s := &Subscription{ch: make(chan Event, 16)}
	b.mu.Lock()
	b.subs = append(b.subs, s)
	b.mu.Unlock()
	return s
}

// C is the subscriber's channel.
func (s *Subscription) C() <-chan Event { return s.ch }

// Publish hands e to every subscriber that has room.
func (b *Bus) Publish(e Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.subs {
		select {
		case s.ch <- e:
		default:
		}
	}
}
