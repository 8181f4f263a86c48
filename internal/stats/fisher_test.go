package stats

import (
	"math"
	"math/big"
	"testing"
)

// bruteFisherLower sums the hypergeometric lower tail with exact integer
// binomials, independently of the log-gamma route.
func bruteFisherLower(basePass, baseFail, curPass, curFail int) float64 {
	n1, n2 := basePass+baseFail, curPass+curFail
	n, k := n1+n2, basePass+curPass
	num := new(big.Int)
	for x := max(0, n2-(n-k)); x <= curPass; x++ {
		t := new(big.Int).Binomial(int64(k), int64(x))
		t.Mul(t, new(big.Int).Binomial(int64(n-k), int64(n2-x)))
		num.Add(num, t)
	}
	den := new(big.Int).Binomial(int64(n), int64(n2))
	f, _ := new(big.Rat).SetFrac(num, den).Float64()
	return f
}

func TestFisherLowerKnownValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		bp, bf, cp, cf int
		want           float64
		tol            float64
	}{
		// Fisher's lady tasting tea: 3 of 4 right against 1 of 4;
		// one-sided p = 17/70.
		{"tea tasting", 3, 1, 1, 3, 0.2429, 5e-5},
		{"tea tasting exact", 3, 1, 1, 3, 17.0 / 70, 1e-12},
		// All ten pass against none: only the observed table is as extreme.
		{"10/10 vs 0/10", 10, 0, 0, 10, 1.0 / 184756, 1e-15},
		// 10/10 against 8/10: C(18,8)/C(20,10).
		{"10/10 vs 8/10", 10, 0, 8, 2, 43758.0 / 184756, 1e-12},
		// An improvement is no evidence of a drop.
		{"improvement", 1, 3, 4, 0, 1, 1e-12},
		{"equal rates", 5, 5, 5, 5, 0.6719, 1e-4},
		{"empty baseline", 0, 0, 3, 2, 1, 0},
		{"empty current", 3, 2, 0, 0, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := FisherLower(tt.bp, tt.bf, tt.cp, tt.cf)
			if math.Abs(got-tt.want) > tt.tol {
				t.Errorf("FisherLower(%d, %d, %d, %d) = %.10g, want %.10g", tt.bp, tt.bf, tt.cp, tt.cf, got, tt.want)
			}
		})
	}
}

func TestFisherLowerMatchesBruteForce(t *testing.T) {
	t.Parallel()
	tests := [][4]int{
		{5, 0, 3, 2},
		{9, 1, 6, 4},
		{45, 5, 38, 12},
		{100, 0, 97, 3},
		{190, 10, 180, 20},
		{480, 20, 470, 30},
		{2900, 100, 2850, 150}, // thousands of runs: log-gamma must stay exact
		{2990, 10, 2975, 25},
		{0, 7, 0, 9}, // everything failed on both sides
	}
	for _, c := range tests {
		got := FisherLower(c[0], c[1], c[2], c[3])
		want := bruteFisherLower(c[0], c[1], c[2], c[3])
		if want == 0 || math.Abs(got-want)/want > 1e-9 {
			t.Errorf("fisherLower%v = %.15g, want %.15g (brute force)", c, got, want)
		}
	}
}

func TestFisherLowerMonotone(t *testing.T) {
	t.Parallel()
	// Fewer current passes is stronger evidence of a drop.
	prev := 2.0
	for cp := 0; cp <= 50; cp++ {
		p := FisherLower(48, 2, cp, 50-cp)
		if p < 0 || p > 1 {
			t.Fatalf("p = %v for %d/50, outside [0, 1]", p, cp)
		}
		if cp > 0 && p < prev-1e-15 {
			t.Fatalf("p fell from %v to %v as passes rose to %d", prev, p, cp)
		}
		prev = p
	}
}
