package redsync

import "time"

// DelayFunc is used to decide the amount of time to wait between retries.
type DelayFunc func(tries int) time.Duration

// WithRetryDelayFunc can be used to override default delay behavior.
func WithRetryDelayFunc(delayFunc DelayFunc) Option {
	return OptionFunc(func(m *Mutex) {})
}
