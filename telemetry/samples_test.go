package telemetry

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestPercentileNearestRank(t *testing.T) {
	t.Parallel()
	ten := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	twenty := make([]float64, 20)
	for i := range twenty {
		twenty[i] = float64(i + 1)
	}
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = float64(i + 1)
	}
	tests := []struct {
		name string
		xs   []float64
		p    float64
		want float64
	}{
		{"empty", nil, 50, 0},
		{"one value", []float64{7}, 50, 7},
		{"one value p99", []float64{7}, 99, 7},
		{"p50 of 10 is the 5th", ten, 50, 5},
		{"p95 of 10 is the 10th", ten, 95, 10},
		{"p95 of 20 is the 19th, exactly", twenty, 95, 19},
		{"p99 of 20 is the slowest", twenty, 99, 20},
		{"p99 of 100 is the 99th", hundred, 99, 99},
		{"p50 of 2 is the lower", []float64{1, 2}, 50, 1},
		{"p100 is the max", ten, 100, 10},
		{"tiny p is the min", ten, 0.01, 1},
	}
	for _, tt := range tests {
		if got := Percentile(tt.xs, tt.p); got != tt.want {
			t.Errorf("%s: Percentile(p%v) = %v, want %v", tt.name, tt.p, got, tt.want)
		}
	}
}

// TestWeightedUnitEqualsPercentile: with every weight 1 the weighted
// percentile is exactly the nearest-rank one, for every size.
func TestWeightedUnitEqualsPercentile(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 300; n++ {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(r.IntN(1000))
		}
		slices.Sort(xs)
		ws := make([]weighted, n)
		for i, x := range xs {
			ws[i] = weighted{x, 1}
		}
		for _, p := range []float64{50, 95, 99} {
			if a, b := weightedPercentile(ws, p), Percentile(xs, p); a != b {
				t.Fatalf("n=%d p%v: weighted %v, nearest rank %v", n, p, a, b)
			}
		}
	}
}

func TestThin(t *testing.T) {
	t.Parallel()
	small := []float64{1, 2, 3}
	if got := thin(small); !slices.Equal(got, small) {
		t.Errorf("thin kept %v of %v", got, small)
	}
	n := 10 * SampleCap
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i)
	}
	got := thin(xs)
	if len(got) != SampleCap || !slices.IsSorted(got) {
		t.Fatalf("thin: %d values, sorted %v", len(got), slices.IsSorted(got))
	}
	// Each kept value stands for 10; the percentiles of the thinned set
	// stay within one stand-in of the full set's.
	for _, p := range []float64{50, 95, 99} {
		full, th := Percentile(xs, p), Percentile(got, p)
		if d := th - full; d < -10 || d > 10 {
			t.Errorf("p%v: thinned %v, full %v", p, th, full)
		}
	}
}

// TestSeriesReservoir: beyond memoryCap the series keeps a bounded
// reservoir and still counts every call.
func TestSeriesReservoir(t *testing.T) {
	t.Parallel()
	s := series{seed: "k"}
	const n = memoryCap + 5000
	for i := range n {
		s.add(time.Duration(i) * time.Microsecond)
	}
	if len(s.d) != memoryCap || s.n != n {
		t.Fatalf("kept %d of %d (n=%d)", len(s.d), n, s.n)
	}
	sum := s.summary()
	if sum.count != n || len(sum.samples) != SampleCap {
		t.Fatalf("summary count %d, %d samples", sum.count, len(sum.samples))
	}
	// Uniform over [0, n) µs: the median is near n/2 µs.
	if mid := float64(n) / 2 / 1000; sum.p50 < mid*0.97 || sum.p50 > mid*1.03 {
		t.Errorf("p50 %v ms, want about %v", sum.p50, mid)
	}
}
