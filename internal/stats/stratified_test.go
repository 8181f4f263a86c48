package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bruteStratified enumerates every combination of the strata's tables with
// exact binomials, independently of the convolution.
func bruteStratified(strata []Stratum) float64 {
	type table struct {
		x int
		p float64
	}
	var per [][]table
	obs := 0
	for _, s := range strata {
		m, n := s.BaseTotal, s.Total
		N, K := m+n, s.BasePassed+s.Passed
		var ts []table
		for x := max(0, n-(N-K)); x <= min(n, K); x++ {
			ts = append(ts, table{x, choose(K, x) * choose(N-K, n-x) / choose(N, n)})
		}
		per = append(per, ts)
		obs += s.Passed
	}
	var walk func(i, sum int, p float64) float64
	walk = func(i, sum int, p float64) float64 {
		if i == len(per) {
			if sum <= obs {
				return p
			}
			return 0
		}
		t := 0.0
		for _, tb := range per[i] {
			t += walk(i+1, sum+tb.x, p*tb.p)
		}
		return t
	}
	return walk(0, 0, 1)
}

func choose(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

func TestStratifiedLowerByHand(t *testing.T) {
	t.Parallel()
	// One stratum is Fisher's one-sided test: 10/10 against 8/10 is
	// C(18,8)/C(20,10).
	r := StratifiedLower([]Stratum{{10, 10, 8, 10}})
	if math.Abs(r.PValue-43758.0/184756) > 1e-12 || !r.Exact || r.Informative != 1 {
		t.Errorf("one stratum: %+v, want p = 43758/184756", r)
	}
	// Two strata of 5 against 5, 5/5 → 3/5 and 4/5 → 4/5. First: K=8, the
	// current side holds 3, 4 or 5 of them, P = C(8,x)C(2,5−x)/C(10,5) =
	// 56/252, 140/252, 56/252. Second: K=8 too, the same. The sum's
	// distribution at 6, 7, 8, 9, 10 is (56·56, 2·56·140, 2·56·56+140², …)
	// /252²; observed 3+4 = 7: (56² + 2·56·140)/252² = 18816/63504.
	r = StratifiedLower([]Stratum{{5, 5, 3, 5}, {4, 5, 4, 5}})
	if want := (56.0*56 + 2*56*140) / (252 * 252); math.Abs(r.PValue-want) > 1e-12 {
		t.Errorf("two strata: p = %v, want %v", r.PValue, want)
	}
	// Strata where every run passed on both sides carry no evidence.
	r = StratifiedLower([]Stratum{{5, 5, 5, 5}, {0, 0, 3, 5}, {5, 5, 5, 5}})
	if r.PValue != 1 || r.Informative != 0 {
		t.Errorf("no informative strata: %+v", r)
	}
	// An improvement is no evidence of a drop.
	if r := StratifiedLower([]Stratum{{2, 5, 5, 5}}); math.Abs(r.PValue-1) > 1e-9 {
		t.Errorf("improvement: p = %v, want 1", r.PValue)
	}
}

func TestStratifiedLowerMatchesBrute(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		var strata []Stratum
		for range 1 + rng.IntN(4) {
			m, n := 1+rng.IntN(8), 1+rng.IntN(8)
			strata = append(strata, Stratum{rng.IntN(m + 1), m, rng.IntN(n + 1), n})
		}
		got, want := StratifiedLower(strata).PValue, bruteStratified(strata)
		if math.Abs(got-want) > 1e-9 {
			t.Fatalf("%+v: p = %v, brute force %v", strata, got, want)
		}
	}
}

// TestStratifiedLowerNullRate: under no change (both sides drawn from each
// case's own rate) the test rejects at most alpha of the time, checked by
// simulation with a fixed seed against the binomial band.
func TestStratifiedLowerNullRate(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	rates := []float64{0.95, 0.9, 0.8, 0.99, 0.7, 0.95, 0.6, 0.95, 0.85, 0.95, 0.5, 0.9}
	const trials, alpha = 4000, 0.05
	rejected := 0
	draw := func(p float64, n int) int {
		x := 0
		for range n {
			if rng.Float64() < p {
				x++
			}
		}
		return x
	}
	for range trials {
		var strata []Stratum
		for _, p := range rates {
			strata = append(strata, Stratum{draw(p, 5), 5, draw(p, 5), 5})
		}
		if StratifiedLower(strata).PValue <= alpha {
			rejected++
		}
	}
	// The exact conditional test is conservative; its rate must not
	// exceed alpha beyond three standard errors.
	if got := float64(rejected) / trials; got > alpha+3*math.Sqrt(alpha*(1-alpha)/trials) {
		t.Errorf("null rejection rate %v, want at most %v", got, alpha)
	}
}

// TestStratifiedNormalApprox: past the exact bound, the CMH approximation
// is used and stays close to the exact value on the same data.
func TestStratifiedNormalApprox(t *testing.T) {
	t.Parallel()
	var strata []Stratum
	for i := range 400 {
		strata = append(strata, Stratum{9 + i%2, 10, 8 + i%3, 10})
	}
	exact := StratifiedLower(strata)
	if !exact.Exact {
		t.Fatal("400 strata of 20 runs should be within the exact bound")
	}
	for i := range 6000 {
		strata = append(strata, Stratum{9 + i%2, 10, 8 + i%3, 10})
	}
	approx := StratifiedLower(strata)
	if approx.Exact {
		t.Fatal("6400 strata should use the normal approximation")
	}
	if approx.PValue > 1e-6 {
		t.Errorf("a consistent drop over 6400 cases: p = %v", approx.PValue)
	}
	// The same comparison as a smaller problem, both ways.
	small := strata[:300]
	e := StratifiedLower(small).PValue
	mean, vari := 0.0, 0.0
	obs := 0
	for _, s := range small {
		m, n := s.BaseTotal, s.Total
		N, K := float64(m+n), float64(s.BasePassed+s.Passed)
		mean += float64(n) * K / N
		vari += float64(n) * K * (N - K) * (N - float64(n)) / (N * N * (N - 1))
		obs += s.Passed
	}
	a := normalCDF((float64(obs) + 0.5 - mean) / math.Sqrt(vari))
	if math.Abs(math.Log(a/e)) > 0.5 {
		t.Errorf("CMH %v and exact %v differ by more than a factor 1.65", a, e)
	}
}

func TestDetectableDrop(t *testing.T) {
	t.Parallel()
	d60 := DetectableDrop(0.95, 60, 60, 0.025, 0.8)
	d600 := DetectableDrop(0.95, 600, 600, 0.025, 0.8)
	if !(d600 < d60 && d60 < 0.3 && d600 > 0) {
		t.Errorf("detectable drops %v (60 runs) and %v (600 runs)", d60, d600)
	}
	// By hand for a mid rate: p0 = 0.5, 200 runs a side, alpha 0.025,
	// power 0.8: d ≈ (1.96 + 0.8416)·√(2·0.25/200) = 0.1401 (the variance
	// under the alternative is a little smaller, so a little less).
	if got := DetectableDrop(0.5, 200, 200, 0.025, 0.8); got < 0.13 || got > 0.1402 {
		t.Errorf("DetectableDrop(0.5, 200, 200) = %v, want about 0.14", got)
	}
	if got := DetectableDrop(0.9, 0, 10, 0.025, 0.8); got != 1 {
		t.Errorf("no baseline runs: %v, want 1", got)
	}
}
