// Package wait is a stub of k8s.io/apimachinery/pkg/util/wait for analysistest.
package wait

import (
	"context"
	"time"
)

func Until(f func(), period time.Duration, stopCh <-chan struct{})                        {}
func UntilWithContext(ctx context.Context, f func(context.Context), period time.Duration) {}
func Forever(f func(), period time.Duration)                                              {}
func JitterUntil(f func(), period time.Duration, jitterFactor float64, sliding bool, stopCh <-chan struct{}) {
}
func NonSlidingUntil(f func(), period time.Duration, stopCh <-chan struct{}) {}
