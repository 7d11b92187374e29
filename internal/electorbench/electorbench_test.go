package electorbench

import (
	"testing"
	"time"
)

func TestPercentileNearestRank(t *testing.T) {
	ms := func(n ...int) []time.Duration {
		ds := make([]time.Duration, len(n))
		for i, v := range n {
			ds[i] = time.Duration(v) * time.Millisecond
		}
		return ds
	}
	for _, tc := range []struct {
		ds   []time.Duration
		p    float64
		want time.Duration
	}{
		{nil, 0.5, 0},
		{ms(7), 0.99, 7 * time.Millisecond},
		{ms(4, 1, 3, 2), 0.5, 2 * time.Millisecond},     // rank ceil(2) = 2
		{ms(5, 1, 4, 2, 3), 0.5, 3 * time.Millisecond},  // rank ceil(2.5) = 3
		{ms(5, 1, 4, 2, 3), 0.99, 5 * time.Millisecond}, // fewer than 100: the maximum
		{ms(10, 20, 30, 40, 50, 60, 70, 80, 90, 100), 0.9, 90 * time.Millisecond},
	} {
		if got := Percentile(tc.ds, tc.p); got != tc.want {
			t.Errorf("Percentile(%v, %v) = %v, want %v", tc.ds, tc.p, got, tc.want)
		}
	}
}
