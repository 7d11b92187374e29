package elector_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
)

func TestDefaultTimingIsValid(t *testing.T) {
	tm := elector.DefaultTiming()
	if err := tm.Validate(); err != nil {
		t.Fatalf("DefaultTiming().Validate() = %v", err)
	}
	if got, want := tm.SafeWindow(), 13500*time.Millisecond; got != want {
		t.Errorf("SafeWindow = %v; want %v", got, want)
	}
	if got := tm.RenewAttempts(); got != 4 {
		t.Errorf("RenewAttempts = %d; want 4 ((13.5s-5s)/2.4s rounds down to 3, plus the first)", got)
	}
	if got, want := tm.CrashFailover(), 17400*time.Millisecond; got != want {
		t.Errorf("CrashFailover = %v; want %v", got, want)
	}
	if got, want := tm.GracefulHandover(true), time.Second; got != want {
		t.Errorf("GracefulHandover(watch) = %v; want %v", got, want)
	}
	if got, want := tm.GracefulHandover(false), 3400*time.Millisecond; got != want {
		t.Errorf("GracefulHandover(poll) = %v; want %v", got, want)
	}
	ex := tm.Explain()
	for _, want := range []string{"13.5s", "17.4s", "3.33%", "renew attempts before the deadline: 4"} {
		if !strings.Contains(ex, want) {
			t.Errorf("Explain() lacks %q:\n%s", want, ex)
		}
	}
}

func TestTimingValidateSaysWhy(t *testing.T) {
	base := elector.DefaultTiming()
	tests := []struct {
		name   string
		change func(*elector.Timing)
		want   string
	}{
		{"zero lease", func(t *elector.Timing) { t.LeaseDuration = 0 }, "lease duration must be positive"},
		{"negative drift", func(t *elector.Timing) { t.DriftBound = -1 }, "drift bound must not be negative"},
		{"margins eat the lease", func(t *elector.Timing) { t.DriftBound = 10 * time.Second; t.StopBudget = 5 * time.Second },
			"must be less than the lease duration"},
		{"renew after deadline", func(t *elector.Timing) { t.RenewInterval = 14 * time.Second },
			"shorter than the safe window"},
		{"one attempt only", func(t *elector.Timing) { t.RenewInterval = 12 * time.Second },
			"room for only 1 renew attempt"},
		{"retry too slow", func(t *elector.Timing) { t.RetryInterval = 8 * time.Second }, "room for only 1 renew attempt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tm := base
			tc.change(&tm)
			err := tm.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v; want an error containing %q", err, tc.want)
			}
			if !strings.Contains(tm.Explain(), "INVALID") {
				t.Errorf("Explain() of an invalid model does not say so:\n%s", tm.Explain())
			}
			if _, err := elector.New(nopStore{}, "x", elector.WithTiming(tm)); err == nil {
				t.Errorf("New accepted invalid timing %v", tm)
			}
		})
	}
}
