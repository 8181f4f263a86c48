package stats

import (
	"math"
	"testing"
)

func TestWilson(t *testing.T) {
	t.Parallel()
	tests := []struct {
		k, n     int
		lo, high float64
	}{
		{0, 0, 0, 1},
		{4, 5, 0.375534630, 0.963775891},
		{5, 5, 0.565517535, 1},
		{0, 5, 0, 0.434482465},
		{10, 10, 0.722467200, 1},
		{3, 4, 0.300641843, 0.954412739},
	}
	for _, tt := range tests {
		lo, hi := Wilson(tt.k, tt.n)
		if math.Abs(lo-tt.lo) > 1e-6 || math.Abs(hi-tt.high) > 1e-6 {
			t.Errorf("Wilson(%d, %d) = [%.9f, %.9f], want [%.9f, %.9f]", tt.k, tt.n, lo, hi, tt.lo, tt.high)
		}
	}
}
