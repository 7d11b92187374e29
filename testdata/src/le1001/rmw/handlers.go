package rmw

import "time"

// Score is a stored record a connector can rewrite.
type Score struct {
	Count int64
	Note  string
}

type ScoreStore interface {
	LoadScore() (*Score, error)
	SaveScore(*Score) error
}

// Connector is implemented by plugins this package never sees: what it
// answers is its own value, not the score it was shown.
type Connector interface {
	Rewrite(old *Score) (*Score, error)
}

type Relay struct {
	store ScoreStore
	conn  Connector
}

// relay hands the stored score to the connector and stores the connector's
// answer, moved on: the value written is not the one read, as far as the
// analysis can see. Silent.
func (r *Relay) relay() error {
	cur, err := r.store.LoadScore()
	if err != nil {
		return err
	}
	next, err := r.conn.Rewrite(cur)
	if err != nil {
		return err
	}
	next.Count = next.Count + 1
	return r.store.SaveScore(next)
}

func (r *Relay) Run() {
	for range time.Tick(time.Minute) {
		r.relay()
	}
}

// rewrite is a function of this package: the analysis reads it, and its
// answer is the score it was given.
func rewrite(old *Score) *Score { return old }

// CopyRelay is Relay's twin whose rewrite is a function of this package:
// the score read goes back incremented. Reported.
type CopyRelay struct{ store ScoreStore }

func (r *CopyRelay) relay() error {
	cur, err := r.store.LoadScore()
	if err != nil {
		return err
	}
	next := rewrite(cur)
	next.Count = next.Count + 1
	return r.store.SaveScore(next)
}

func (r *CopyRelay) Run() {
	for range time.Tick(time.Minute) { // want `reads a value through r.store.LoadScore \(handlers.go:\d+\) and writes it back incremented through r.store.SaveScore`
		r.relay()
	}
}

// Codec decodes into the pointer it is handed.
type Codec interface {
	Decode(src *Score, dst *Score) error
}

// DecodeRelay is Relay's twin whose interface method fills a pointer with
// the score read: the pointer carries it, moved on and stored back.
// Reported.
type DecodeRelay struct {
	store ScoreStore
	codec Codec
}

func (r *DecodeRelay) relay() error {
	cur, err := r.store.LoadScore()
	if err != nil {
		return err
	}
	var next Score
	if err := r.codec.Decode(cur, &next); err != nil {
		return err
	}
	next.Count = next.Count + 1
	return r.store.SaveScore(&next)
}

func (r *DecodeRelay) Run() {
	for range time.Tick(time.Minute) { // want `reads a value through r.store.LoadScore \(handlers.go:\d+\) and writes it back incremented through r.store.SaveScore`
		r.relay()
	}
}

// Reading is what LoadReading answers: an interface whose method reports
// the stored value.
type Reading interface{ Value() int64 }

type fixedReading int64

func (f fixedReading) Value() int64 { return int64(f) }

type ReadingStore interface {
	LoadReading() (Reading, error)
	SaveReading(Reading) error
}

// MethodRelay is Relay's twin that moves on what the value read answers
// through its own method: that is still the value read. Reported.
type MethodRelay struct{ store ReadingStore }

func (r *MethodRelay) relay() error {
	cur, err := r.store.LoadReading()
	if err != nil {
		return err
	}
	return r.store.SaveReading(fixedReading(cur.Value() + 1))
}

func (r *MethodRelay) Run() {
	for range time.Tick(time.Minute) { // want `reads a value through r.store.LoadReading \(handlers.go:\d+\) and writes it back incremented through r.store.SaveReading`
		r.relay()
	}
}
