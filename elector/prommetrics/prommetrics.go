// Package prommetrics exports an elector.Candidate's state and events as
// Prometheus metrics, so that the elector package itself does not depend on
// Prometheus:
//
//	c, err := elector.New(store, "billing")
//	...
//	if err := prommetrics.Register(prometheus.DefaultRegisterer, c); err != nil { ... }
//
// Every series carries the label lease="<name>", so several candidates can
// share a registry (one per lease name):
//
//	elector_is_leader              1 while the leader context is live
//	elector_token                  the current term's fencing token, 0 when not leading
//	elector_seconds_to_deadline    until the leader context ends unless renewed
//	elector_transitions_total      times the candidate became or stopped being the leader
//	elector_events_total{kind}     events by kind (acquired, renewed, lost, frozen, ...)
//	elector_events_dropped_total   events the logger or callback fell too far behind to see
//	elector_renew_latency_seconds  renew round trips, successful or not
//
// The gauges are read from the candidate when scraped; the counters come
// from an observer (elector.Candidate.AddObserver), so they count every
// event, also those a slow WithEvents callback missed. Register before Run
// so that no event goes uncounted.
package prommetrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gatesift/gatesift-vet/elector"
)

// Register registers c's metrics with reg and starts counting c's events.
// It fails, registering nothing that stays, if reg already has a candidate
// for the same lease name.
func Register(reg prometheus.Registerer, c *elector.Candidate) error {
	labels := prometheus.Labels{"lease": c.Name()}
	opts := func(name, help string) prometheus.Opts {
		return prometheus.Opts{Namespace: "elector", Name: name, Help: help, ConstLabels: labels}
	}
	m := &counters{
		transitions: prometheus.NewCounter(prometheus.CounterOpts(opts("transitions_total",
			"Times this candidate became or stopped being the leader."))),
		events: prometheus.NewCounterVec(prometheus.CounterOpts(opts("events_total",
			"Candidate events by kind.")), []string{"kind"}),
		renewLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "elector", Name: "renew_latency_seconds", ConstLabels: labels,
			Help:    "Round trip of renew requests, successful or not.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 14), // 1ms .. ~8s
		}),
	}
	dropped := prometheus.NewCounterFunc(prometheus.CounterOpts(opts("events_dropped_total",
		"Events not logged or passed to the event callback because it fell behind.")), func() float64 {
		return float64(c.DroppedEvents())
	})
	isLeader := prometheus.NewGaugeFunc(prometheus.GaugeOpts(opts("is_leader",
		"1 while this candidate's leader context is live, else 0.")), func() float64 {
		if _, ok := c.Lease(); ok {
			return 1
		}
		return 0
	})
	token := prometheus.NewGaugeFunc(prometheus.GaugeOpts(opts("token",
		"Fencing token of the current term; 0 when not leading.")), func() float64 {
		l, _ := c.Lease()
		return float64(l.Token())
	})
	toDeadline := prometheus.NewGaugeFunc(prometheus.GaugeOpts(opts("seconds_to_deadline",
		"Seconds until the leader context is cancelled unless renewed; 0 when not leading.")), func() float64 {
		l, ok := c.Lease()
		if !ok {
			return 0
		}
		return max(0, time.Until(l.Deadline()).Seconds())
	})
	var done []prometheus.Collector
	for _, col := range []prometheus.Collector{m.transitions, m.events, dropped, m.renewLatency, isLeader, token, toDeadline} {
		if err := reg.Register(col); err != nil {
			for _, d := range done {
				reg.Unregister(d)
			}
			return err
		}
		done = append(done, col)
	}
	c.AddObserver(m.observe)
	return nil
}

// counters are the series fed by events.
type counters struct {
	transitions  prometheus.Counter
	events       *prometheus.CounterVec
	renewLatency prometheus.Histogram

	mu      sync.Mutex
	leading bool
}

func (m *counters) observe(e elector.Event) {
	m.events.WithLabelValues(e.Kind.String()).Inc()
	switch e.Kind {
	case elector.Renewed, elector.RenewFailed:
		m.renewLatency.Observe(e.Latency.Seconds())
	}
	// A term starts with Acquired and ends with the first of these.
	m.mu.Lock()
	defer m.mu.Unlock()
	switch e.Kind {
	case elector.Acquired:
		if !m.leading {
			m.leading = true
			m.transitions.Inc()
		}
	case elector.Ended, elector.Lost, elector.Released, elector.ReleaseFailed, elector.Frozen, elector.WorkOverran:
		if m.leading {
			m.leading = false
			m.transitions.Inc()
		}
	}
}
