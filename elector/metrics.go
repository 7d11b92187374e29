package elector

import (
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the candidate's Prometheus series, labelled with the lease name
// so several candidates can share a registry.
type metrics struct {
	transitions  prometheus.Counter
	events       *prometheus.CounterVec
	renewLatency prometheus.Histogram
	dropped      prometheus.Counter
}

func newMetrics(c *Candidate, reg prometheus.Registerer) (*metrics, error) {
	labels := prometheus.Labels{"lease": c.name}
	opts := func(name, help string) prometheus.Opts {
		return prometheus.Opts{Namespace: "elector", Name: name, Help: help, ConstLabels: labels}
	}
	m := &metrics{
		transitions: prometheus.NewCounter(prometheus.CounterOpts(opts("transitions_total",
			"Times this candidate became or stopped being the leader."))),
		events: prometheus.NewCounterVec(prometheus.CounterOpts(opts("events_total",
			"Candidate events by kind.")), []string{"kind"}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts(opts("events_dropped_total",
			"Events not logged or passed to the event callback because it fell behind."))),
		renewLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "elector", Name: "renew_latency_seconds", ConstLabels: labels,
			Help:    "Round trip of renew requests, successful or not.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 14), // 1ms .. ~8s
		}),
	}
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
		return max(0, l.Deadline().Sub(c.clock.Now()).Seconds())
	})
	for _, col := range []prometheus.Collector{m.transitions, m.events, m.dropped, m.renewLatency, isLeader, token, toDeadline} {
		if err := reg.Register(col); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *metrics) observe(e Event) {
	m.events.WithLabelValues(e.Kind.String()).Inc()
	if e.Kind == Renewed || e.Kind == RenewFailed {
		m.renewLatency.Observe(e.Latency.Seconds())
	}
}
